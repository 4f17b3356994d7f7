"""Group-sequential boundaries (pagelab.evidence.sequential) against published values."""

from __future__ import annotations

import pytest

from pagelab.evidence.sequential import (Look, SequentialPlan, obrien_fleming_boundaries, obrien_fleming_spending,
                                         spending_boundaries)

THIRDS = (1 / 3, 2 / 3, 1.0)


def test_lan_demets_obrien_fleming_type_boundaries_at_three_equal_looks():
    # Three equally spaced looks, two-sided 5% (2.5% a side): 3.7103, 2.5114, 1.9930, as gsDesign's
    # gsDesign(k = 3, test.type = 1, alpha = 0.025, sfu = sfLDOF) and rpact's
    # getDesignGroupSequential(kMax = 3, alpha = 0.025, typeOfDesign = "asOF") give them.
    assert spending_boundaries(THIRDS, 0.05) == pytest.approx((3.7103, 2.5114, 1.9930), abs=2e-4)


def test_the_same_joint_law_gives_obrien_flemings_own_boundaries():
    # O'Brien & Fleming (1979) at K = 3, two-sided 5%: C_B(3, 0.05) = 2.004 (Jennison & Turnbull
    # 2000, Table 2.3), so 2.004 * sqrt(3), 2.004 * sqrt(3/2), 2.004; rpact's default design
    # (typeOfDesign "OF") gives 3.4710914, 2.4544323, 2.0040356.
    assert obrien_fleming_boundaries(THIRDS, 0.05) == pytest.approx((3.4711, 2.4544, 2.0040), abs=2e-4)


def test_the_spending_function_spends_alpha_by_the_last_look_and_little_early():
    assert obrien_fleming_spending(1.0, 0.05) == pytest.approx(0.05)
    assert obrien_fleming_spending(1 / 3, 0.05) == pytest.approx(2.07e-4, rel=0.01)  # 4 * (1 - Phi(2.2414 * sqrt 3))


def test_a_sweep_without_room_to_grow_is_a_fixed_design_at_the_full_level():
    plan = SequentialPlan((Look(1, 9),), max_rounds=9, alpha=0.05)
    assert not plan.sequential
    assert plan.nominal_alphas() == pytest.approx((0.05,))
    assert "full 5%" in plan.lines()[0]


def test_a_sweep_with_room_to_grow_tests_its_first_look_at_the_spending_boundary():
    first = SequentialPlan((Look(1, 7),), max_rounds=21, alpha=0.05)
    assert first.sequential
    assert first.boundaries() == pytest.approx((3.7103,), abs=2e-4)
    both = SequentialPlan((Look(1, 7), Look(2, 14, "2026-11-28T10:00:00")), max_rounds=21, alpha=0.05)
    assert both.current_confidence() == pytest.approx(1 - 0.01202, abs=2e-5)  # 2 * (1 - Phi(2.5114))
    lines = both.lines()
    assert "look 2: 14 rounds, 2026-11-28T10:00:00: |z| >= 2.511" in "\n".join(lines)


def test_looks_past_the_declared_maximum_or_out_of_order_are_refused():
    with pytest.raises(ValueError, match="past max_rounds"):
        SequentialPlan((Look(1, 7), Look(2, 22)), max_rounds=21, alpha=0.05)
    with pytest.raises(ValueError, match="rising"):
        SequentialPlan((Look(1, 7), Look(2, 7)), max_rounds=21, alpha=0.05)


def test_a_bundle_is_read_as_its_looks():
    from pagelab.evidence.sequential import plan_of

    old = {"profile": {"repeats": 9}, "created": "2026-11-25T03:12:00+0000"}  # before looks and max_rounds
    assert not plan_of(old, 0.05).sequential and plan_of(old, 0.05).family_confidence(3) == pytest.approx(0.95)
    grown = {"profile": {"repeats": 7, "max_rounds": 21},
             "looks": [{"look": 1, "rounds": 7, "time": "a"}, {"look": 2, "rounds": 14, "time": "b"}]}
    plan = plan_of(grown, 0.05)
    # one hypothesis is tested at look 2's published boundary, 2.5114: 2 * (1 - Phi(2.5114)) = 0.01202
    assert plan.family_confidence(1) == pytest.approx(1 - 0.01202, abs=2e-5)
    # three share it: Holm's steps each at or under their own level, so no looser than one alone
    assert plan.family_confidence(3) >= plan.family_confidence(1)
