/* Progress on a terminal: while blocking work runs, a thread shows the current stage, a spinner and
 * the elapsed time on stderr once the work has taken more than two seconds. Nothing at all is
 * printed when stderr is not a terminal. */
#ifndef CLMAX_CLI_PROGRESS_H
#define CLMAX_CLI_PROGRESS_H

/* Start timing, with stage as the first thing being done (a string that outlives the call). */
void progress_begin(const char *stage);

/* Name the stage now running. */
void progress_stage(const char *stage);

/* Stop, and erase the progress line if one was shown. Safe to call more than once. */
void progress_end(void);

#endif /* CLMAX_CLI_PROGRESS_H */
