"""Reports: the lab report's words and tables (`lab_report`) and figures (`figures`) drawn from a
bundle, its appendix (`appendix`), notebooks executed by papermill (`execute`), and an executed notebook printed to PDF by
Chromium (`pdf`, `notebook_report`)."""
