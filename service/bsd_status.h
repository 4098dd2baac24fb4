/* bsd_status.h: the STATUS text (key=value lines): backend, queues, batches, bytes, errors. */
#ifndef BSD_STATUS_H
#define BSD_STATUS_H

#include <stddef.h>

#include "bsd_daemon.h"

/* Writes the STATUS text into out; returns its length. */
size_t bsd_status_text(bsd_daemon *d, char *out, size_t len);

#endif
