/* MPRIS (org.mpris.MediaPlayer2 and .Player on the D-Bus session bus) so
 * that desktop media keys, status bars and playerctl control crate and see
 * what plays. Built on sd-bus (libsystemd) when configure found it;
 * without it (--without-mpris) these do nothing. A front end that plays
 * (the interface, `crate play --no-ui`) opens it and polls its descriptor;
 * with no session bus (the usual case over SSH) nothing happens and
 * nothing is printed. A listener of app_play's notices. */
#ifndef CRATE_APP_APP_MPRIS_H
#define CRATE_APP_APP_MPRIS_H

#include <stdbool.h>

struct app;
struct app_mpris;

/* Connect and claim org.mpris.MediaPlayer2.crate (or .crate.instance<pid>
 * when another crate has it). NULL when there is no bus or no support. */
struct app_mpris *app_mpris_open(struct app *app);
void app_mpris_close(struct app_mpris *m);
/* The descriptor to poll, the events to poll for, and the longest wait
 * in ms (-1: none); fd -1 when closed. */
int app_mpris_fd(struct app_mpris *m, short *events, int *timeout_ms);
/* Handle everything waiting on the bus (method calls, replies). */
void app_mpris_process(struct app_mpris *m);

#endif
