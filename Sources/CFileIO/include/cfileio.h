// Linux calls that Swift's Glibc module does not expose (they need _GNU_SOURCE, or
// <malloc.h>).
#ifndef FEEDSH_CFILEIO_H
#define FEEDSH_CFILEIO_H

#include <spawn.h>
#include <sys/types.h>

/// Starts writeback of a byte range without waiting for it (SYNC_FILE_RANGE_WRITE),
/// so that a later fdatasync has little left to do. Returns 0 or -1 with errno.
int feedsh_start_writeback(int fd, off_t offset, off_t length);

/// Caps glibc's malloc arenas (M_ARENA_MAX); returns mallopt's result (1 on
/// success).
int feedsh_limit_malloc_arenas(int count);

/// Has posix_spawn close every file descriptor from `lowest` up in the child
/// (glibc 2.34's posix_spawn_file_actions_addclosefrom_np). Returns 0 or an error.
int feedsh_spawn_close_from(posix_spawn_file_actions_t *actions, int lowest);

/// glibc's POSIX_SPAWN_SETSID: the child starts a session of its own.
int feedsh_spawn_setsid_flag(void);

/// pipe2(fds, O_CLOEXEC): a pipe no program started at the same moment inherits.
/// Returns 0 or -1 with errno.
int feedsh_pipe_cloexec(int fds[2]);

#endif
