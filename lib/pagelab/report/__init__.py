"""Reports: the lab report's data read from a bundle (`lab_report`), its words and tables (`answer`,
`claims`, `method`, `setup_tables`, `host_report`, `precision`, `references`, `model_report`,
`grid_report`, `read_requests`, `self_check`; the lab's configuration the claims are checked in,
`seed_configuration`) and figures (`figures`) drawn from it, its appendix (`appendix`; where its
server variables' values come from, `variable_sources`), the words tables are shown under
(`labels`), notebooks executed by papermill (`execute`), and an executed notebook printed to PDF
by Chromium (`pdf`, `notebook_report`)."""
