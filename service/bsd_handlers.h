/*
 * bsd_handlers.h: the request handlers (HELLO, MAP_SHM, OPEN_SESSION, CLOSE_SESSION,
 * KEYSTREAM, STATUS) over a connection, and the answer to a KEYSTREAM job once the batcher is
 * done with it.
 */
#ifndef BSD_HANDLERS_H
#define BSD_HANDLERS_H

#include "bsd_conn.h"

/* One decoded request (the daemon's on_request). */
void bsd_handle_request(bsd_conn *c, bsd_request *r);
/* A connection closed (the daemon's on_close): its jobs still queued are cancelled. */
void bsd_handle_conn_closed(bsd_conn *c);
/* The batcher's job_done (arg: the daemon): answers KEYSTREAM, or ERROR INTERNAL on failure. */
void bsd_handle_job_done(void *arg, bsd_job *job, int status);

#endif
