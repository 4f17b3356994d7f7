"""Reports: the lab report's words and tables (`lab_report`) and figures (`figures`) drawn from a
bundle, its appendix (`appendix`), the words tables are shown under (`labels`), notebooks executed by papermill
(`execute`), and an executed notebook printed to PDF by Chromium (`pdf`, `notebook_report`)."""
