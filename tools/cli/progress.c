/* A progress line on stderr, drawn by a thread so that it moves during blocking library calls. */
#include "progress.h"

#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#define PROGRESS_DELAY_S 2.0
#define PROGRESS_TICK_NS 200000000L

static struct {
    pthread_mutex_t lock;
    pthread_cond_t wake;
    pthread_t thread;
    int running, stop;
    const char *stage;
    struct timespec start;
    int shown; /* width of the line on screen */
} progress = {.lock = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER};

static double seconds_since(const struct timespec *t)
{
    struct timespec now;

    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - t->tv_sec) + (double)(now.tv_nsec - t->tv_nsec) * 1e-9;
}

static void *progress_main(void *arg)
{
    static const char spinner[] = "|/-\\";
    unsigned tick = 0;

    (void)arg;
    pthread_mutex_lock(&progress.lock);
    while (!progress.stop) {
        struct timespec until;
        double elapsed = seconds_since(&progress.start);

        if (elapsed >= PROGRESS_DELAY_S) {
            int n = fprintf(stderr, "\rclmax: %s %c %.0fs", progress.stage, spinner[tick++ % 4],
                            elapsed);
            /* Blank what is left of a longer previous line. */
            if (n >= 0 && n < progress.shown) fprintf(stderr, "%*s", progress.shown - n, "");
            if (n > progress.shown) progress.shown = n;
            fflush(stderr);
        }
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += PROGRESS_TICK_NS;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&progress.wake, &progress.lock, &until);
    }
    if (progress.shown > 0) {
        fprintf(stderr, "\r%*s\r", progress.shown, "");
        fflush(stderr);
    }
    progress.shown = 0;
    pthread_mutex_unlock(&progress.lock);
    return NULL;
}

void progress_begin(const char *stage)
{
    if (progress.running || !isatty(STDERR_FILENO)) return;
    pthread_mutex_lock(&progress.lock);
    progress.stage = stage;
    progress.stop = 0;
    clock_gettime(CLOCK_MONOTONIC, &progress.start);
    pthread_mutex_unlock(&progress.lock);
    /* Without a thread there is no progress line, and nothing else changes. */
    progress.running = pthread_create(&progress.thread, NULL, progress_main, NULL) == 0;
}

void progress_stage(const char *stage)
{
    pthread_mutex_lock(&progress.lock);
    progress.stage = stage;
    pthread_mutex_unlock(&progress.lock);
}

void progress_end(void)
{
    if (!progress.running) return;
    pthread_mutex_lock(&progress.lock);
    progress.stop = 1;
    pthread_cond_signal(&progress.wake);
    pthread_mutex_unlock(&progress.lock);
    pthread_join(progress.thread, NULL);
    progress.running = 0;
}
