"""The machine an experiment runs on: its facts (`system`) and the disk under a directory
(`devices`), whether it can run one (`doctor`), how noisy it is (`noise`), the host each run ran
on (`hosts`), where a run's server and driver run on the CPUs (`placement`), and the device's own
random-read IOPS per block size, measured (`fio`) and kept as a profile (`device_profile`)."""
