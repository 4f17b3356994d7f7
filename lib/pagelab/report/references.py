"""The report's References and Glossary, and the pagelab version a bundle was made with.

Apart from the rest of the report because the works cited change with the methods used
(pagelab.evidence), and the glossary is written once in runbooks/glossary.md.
"""

from __future__ import annotations

from pagelab.common.reference import CITATIONS

REFERENCES = [
    CITATIONS["week4_lab"] + "; the course's labs: https://github.com/meeeejin/SWE3033-F2021 (week-4).",
    "Percona-Lab, tpcc-mysql: https://github.com/Percona-Lab/tpcc-mysql (the driver whose statements, "
    "transaction boundaries and log format pagelab's default driver mode reproduces).",
    "V. Tkachenko, \"Small innodb_page_size as a performance boost for SSD\", Percona blog, 2016-08-10: "
    "https://www.percona.com/blog/2016/08/10/small-innodb_page_size-performance-boost-ssd/ (tpcc-mysql, 4k against "
    "16k pages at buffer pools from 5 GiB up, on three SSDs).",
    "Transaction Processing Performance Council, TPC Benchmark C Standard Specification, revision 5.11 "
    "(2010): https://www.tpc.org/tpcc/",
    "A. Maricq, D. Duplyakin, I. Jimenez, C. Maltzahn, R. Stutsman, R. Ricci, \"Taming Performance "
    "Variability\", OSDI 2018.",
    "T. Hoefler, R. Belli, \"Scientific Benchmarking of Parallel Computing Systems\", SC 2015.",
    "W. J. Conover, \"Practical Nonparametric Statistics\", 3rd ed., Wiley, 1999, ch. 3 (the order-statistic "
    "confidence interval of a median from the binomial distribution, and the confidence it really has).",
    "K. P. White Jr., \"An effective truncation heuristic for bias reduction in simulation output\", "
    "Simulation 69(6), 1997 (MSER).",
    "B. Efron, R. J. Tibshirani, \"An Introduction to the Bootstrap\", Chapman & Hall, 1993 (the percentile "
    "interval of a ratio of medians).",
    "F. Wilcoxon, \"Individual comparisons by ranking methods\", Biometrics Bulletin 1(6), 1945 (the "
    "signed-rank test: rounds compared pair by pair).",
    "S. Holm, \"A simple sequentially rejective multiple test procedure\", Scandinavian Journal of Statistics "
    "6(2), 1979 (the p-values of a family of pairs, adjusted with statsmodels' multipletests).",
    "O. J. Dunn, \"Multiple comparisons among means\", Journal of the American Statistical Association 56, 1961 "
    "(the Bonferroni-adjusted level of a family's intervals).",
    "D. J. Schuirmann, \"A comparison of the two one-sided tests procedure and the power approach for assessing "
    "the equivalence of average bioavailability\", Journal of Pharmacokinetics and Biopharmaceutics 15(6), 1987 "
    "(equivalence within a stated margin).",
    "T. Kalibera, R. Jones, \"Rigorous Benchmarking in Reasonable Time\", ISMM 2013 (effect sizes with "
    "their intervals first).",
    "P. H. Westfall, S. S. Young, \"Resampling-Based Multiple Testing\", Wiley 1993 (the max-T permutation test "
    "of the sweep's A/A check).",
    "B. L. Welch, \"The generalization of 'Student's' problem when several different population variances are "
    "involved\", Biometrika 34, 1947 (the degrees of freedom of the difference of two estimates of the two-level "
    "model: the A/A check of the pair effects, and two sweeps compared).",
    "F. E. Satterthwaite, \"An approximate distribution of estimates of variance components\", Biometrics Bulletin "
    "2(6), 1946 (the degrees of freedom of TpmC's two-level model, the rounds less one, and of the Welch-Satterthwaite "
    "tests of two estimates).",
    "F. G. Giesbrecht, J. C. Burns, \"Two-stage analysis based on a mixed model: large-sample asymptotic theory "
    "and small-sample simulation results\", Biometrics 41(2), 1985 (TpmC's two-level model: the rounds' mean "
    "log-ratio with a t interval on the rounds less one).",
    "W. Maurer, L. A. Hothorn, W. Lehmacher, \"Multiple comparisons in drug clinical trials and preclinical "
    "assays: a-priori ordered hypotheses\", in J. Vollmar (ed.), Biometrie in der chemisch-pharmazeutischen "
    "Industrie 6, Gustav Fischer, Stuttgart, 1995, pp. 3-18; P. H. Westfall, A. Krishen, \"Optimally weighted, fixed "
    "sequence and gatekeeper multiple testing procedures\", Journal of Statistical Planning and Inference 99, "
    "2001 (the declared primary comparison tested first, the other pairs only after it).",
    "K. K. G. Lan, D. L. DeMets, \"Discrete sequential boundaries for clinical trials\", Biometrika 70(3), 1983 "
    "(the group-sequential boundary of a sweep given more rounds).",
    "R. Jain, \"The Art of Computer Systems Performance Analysis\", Wiley, 1991, ch. 13.4 (the paired t interval "
    "TpmC's two-level model reduces to with blocks alike) and ch. 14 (the t-test of a regression slope: the drift test "
    "of an over-time run's batch means).",
    "A. M. Law, \"Simulation Modeling and Analysis\", 5th ed., McGraw-Hill, 2015 (earlier editions with W. D. "
    "Kelton), ch. 9.5 (batch means, and the batch size chosen by a lag-1 test).",
    "F. H. C. Marriott, J. A. Pope, \"Bias in the estimation of autocorrelations\", Biometrika 41, 1954 (the "
    "expected lag-1 autocorrelation of a series centred on its own mean).",
    "M. S. Bartlett, \"On the theoretical specification and sampling properties of autocorrelated time-series\", "
    "Journal of the Royal Statistical Society, Supplement 8(1), 1946 (the standard error 1/√N of an autocorrelation).",
    "R. D. Cook, S. Weisberg, \"Residuals and Influence in Regression\", Chapman and Hall 1982 (the outlier test "
    "that names a run far below its page size's others, as a slow disk leaves one).",
    "H. S. Bloom, \"Minimum detectable effects: a simple way to report the statistical power of experimental "
    "designs\", Evaluation Review 19(5), 1995 (the effect a line's runs resolve, \"resolve effects of about ±R%\").",
    "S.-C. Chow, J. Shao, H. Wang, \"Sample Size Calculations in Clinical Research\", 2nd ed., Chapman & Hall/CRC, "
    "2008, sec. 3.2 (the rounds an equivalence within the margin would need).",
]


# Works whose method only some bundles use: the runs compared one by one (fewer rounds shared than a
# paired test needs), precision weights (declared by `block_weights: precision`) and Bartlett's test of
# equal variances (printed in a components' note only where a page size's groups' a differ); and three
# the glossary names that no report's verdicts use: Paule-Mandel (block_weights' documented alternative
# to its own rule), CUPED (measured, and left out of the verdicts: the glossary says why) and Fisher's
# method (self_checks.combined_first_round_p: several sweeps' round-1 checks, as the runbook combines them). The glossary the report prints cites them all, so they stay in the list, marked where
# this bundle did not use them.
METHOD_REFERENCES = {
    "rank_sum": (
        "H. B. Mann, D. R. Whitney, \"On a test of whether one of two random variables is stochastically larger "
        "than the other\", Annals of Mathematical Statistics 18(1), 1947 (runs compared one by one).",
    ),
    "precision_weights": (
        "W. Viechtbauer, \"Confidence intervals for the amount of heterogeneity in meta-analysis\", Statistics in "
        "Medicine 26, 2007 (the Q-profile bound of the between-run floor that precision weights use).",
        "J. Hartung, G. Knapp, \"A refined method for the meta-analysis of controlled clinical trials with binary "
        "outcome\", Statistics in Medicine 20, 2001; K. Sidik, J. N. Jonkman, \"A simple confidence interval for "
        "meta-analysis\", Statistics in Medicine 21, 2002 (the variance of the precision-weighted mean, HKSJ).",
    ),
    "paule_mandel": (
        "R. C. Paule, J. Mandel, \"Consensus values and weighting factors\", Journal of Research of the National "
        "Bureau of Standards 87(5), 1982, pp. 377-385 (an estimate of the variance between blocks, the alternative "
        "the runbook sets beside precision weights' bound).",
    ),
    "bartlett_variances": (
        "M. S. Bartlett, \"Properties of sufficiency and statistical tests\", Proceedings of the Royal Society of "
        "London A 160, 1937, pp. 268-282 (Bartlett's test of equal variances: whether a page size's groups of runs "
        "share one within-run a, in the variance components' notes).",
    ),
    "cuped": (
        "A. Deng, Y. Xu, R. Kohavi, T. Walker, \"Improving the sensitivity of online controlled experiments by "
        "utilizing pre-experiment data\", WSDM 2013 (CUPED: a covariate measured before the treatment; measured "
        "here and not used, as the glossary says why).",
    ),
    "fisher": (
        "R. A. Fisher, \"Statistical Methods for Research Workers\", 4th ed., Oliver and Boyd, Edinburgh, 1932, "
        "sec. 21.1 (independent tests' p-values combined into one, -2 Σ ln p on χ²: several sweeps' round-1 checks, "
        "with scipy's combine_pvalues).",
    ),
}

# How a work is marked where this bundle did not use it: the glossary names the others; Bartlett's
# test is not a glossary word, and decides no verdict, only whether a note is printed.
GLOSSARY_UNUSED = "named in the glossary: this report's verdicts did not use it"
UNUSED_WORDS = {"bartlett_variances": "no page size's groups of runs were found to differ in a here, so no note "
                                      "of this report uses it"}


def methods_used(data) -> set[str]:
    """Which of METHOD_REFERENCES' methods the bundle's report used."""
    from pagelab.evidence.components import GROUPS_TEST
    from pagelab.evidence.runs import model_data
    from pagelab.report.model_report import RANK_SUM, kind_of

    used = set()
    if any(kind_of(row) == RANK_SUM for row in data.pairs.to_dict("records")):
        used.add("rank_sum")
    if str(data.profile.get("block_weights") or "") == "precision":
        used.add("precision_weights")
    found = model_data(data.evidence)
    if found is not None and any(GROUPS_TEST in note for note in found.components.notes):
        used.add("bartlett_variances")  # its p is printed in a components' note (pagelab.evidence.components)
    return used

def recorded_version(machine: dict) -> str:
    """The pagelab version a bundle was made with, from the commit its machine record names."""
    from pagelab.machine.system import version_naming

    sha, dirty = machine.get("git_sha"), machine.get("git_dirty")
    if not sha:
        return version_naming(sha, dirty) + " (commit not recorded)"
    return version_naming(sha, dirty) + f" (commit {sha}" + (", with local changes)" if dirty else ")")


def glossary_markdown() -> str:
    """The glossary's entries (runbooks/glossary.md, where they are written once), for the report's
    Glossary; its links, which lead nowhere in a PDF, become their words."""
    import re

    from pagelab.common.paths import GLOSSARY

    text = GLOSSARY.read_text()
    entries = text[text.index("\n- **") + 1:]
    return ("The words this report uses with a precise meaning, as pagelab's glossary (runbooks/glossary.md) "
            "defines them:\n\n" + re.sub(r"\[([^\]]+)\]\([^)]*\)", r"\1", entries))


def references(machine: dict, rendering: tuple[str | None, bool | None] | None = None,
               used: set[str] | None = None) -> list[str]:
    """The report's References: the works it reproduces and relies on, those of the methods only some
    bundles use (METHOD_REFERENCES), marked where not in `used` (methods_used; None: unmarked), and the pagelab that ran the sweep, with the one that
    made the report where that is another commit (`rendering`: its sha and dirty flag; by default the
    running pagelab's)."""
    from pagelab.machine.system import git_revision, version_naming

    ran = recorded_version(machine)
    sha, dirty = rendering if rendering is not None else git_revision()
    made = version_naming(sha, dirty)
    if ran.startswith(made + " "):
        report = " The same commit made this report: cite it for both what ran and what judged."
    else:
        commit = f" (commit {sha}{', with local changes' if dirty else ''})" if sha else " (commit not known)"
        report = (f" The sweep ran with this commit; this report was made by {made}{commit}. Cite the sweep's commit "
                  "for what ran (the runs and their records) and the report's for what judged (the verdicts, "
                  "intervals and words of this report): another commit may judge the same runs differently, and "
                  "`pagelab report` run from the sweep's commit gives that commit's judgement.")
    cited = [text if used is None or key in used else
             text[:-2] + f"; {UNUSED_WORDS.get(key, GLOSSARY_UNUSED)})." if text.endswith(").")
             else text + f" ({UNUSED_WORDS.get(key, GLOSSARY_UNUSED)}.)"
             for key, texts in METHOD_REFERENCES.items() for text in texts]
    return [*REFERENCES, *cited, f"pagelab {ran}: reproducible experiments on how a database's page "
                         "size changes its performance, MIT License. No public release, DOI or repository address: the "
                         f"commit identifies the code; its CITATION.cff says how to cite it.{report}"]
