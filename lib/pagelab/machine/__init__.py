"""The machine an experiment runs on: its facts (`system`) and the disk under a directory (`devices`), whether it can run one
(`doctor`), how noisy it is (`noise`), the host each run ran on (`hosts`), and the device's own
random-read IOPS per block size (`fio`)."""
