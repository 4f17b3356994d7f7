"""The one exit-status scheme of every `pagelab` command (shown by `pagelab --help`)."""

EXIT_OK = 0
EXIT_FAILED = 1  # the command ran and something failed: a missing dependency, a failed run
EXIT_BAD_INPUT = 2  # arguments, a profile, or a file given that cannot be used; nothing was changed
EXIT_NOT_RUNNING = 3  # `pagelab server status`: the server is not running
EXIT_STORAGE = 4  # the storage failed under the command: read-only filesystem, I/O error, disk full
EXIT_UNEXPECTED = 70  # an error pagelab did not foresee (sysexits' EX_SOFTWARE); its traceback is saved
EXIT_INTERRUPTED = 130  # Ctrl-C or SIGTERM, as a shell reports SIGINT
EXIT_STATUSES = (
    f"exit status: {EXIT_OK} done; {EXIT_FAILED} something failed (a missing dependency, a failed run); "
    f"{EXIT_BAD_INPUT} bad input (arguments, profile, a file that cannot be read), nothing changed; "
    f"{EXIT_NOT_RUNNING} `server status` of a stopped server; {EXIT_STORAGE} the storage failed (read-only "
    f"filesystem, I/O error, disk full): repair it, then resume; {EXIT_UNEXPECTED} an unexpected error, its "
    f"traceback saved to the file the message names; {EXIT_INTERRUPTED} interrupted."
)
