#define _GNU_SOURCE
#include <fcntl.h>
#include <unistd.h>
#include "cfileio.h"

int feedsh_start_writeback(int fd, off_t offset, off_t length) {
#ifdef SYNC_FILE_RANGE_WRITE
    return sync_file_range(fd, offset, length, SYNC_FILE_RANGE_WRITE);
#else
    (void)fd; (void)offset; (void)length;
    return 0;
#endif
}

#include <malloc.h>

int feedsh_limit_malloc_arenas(int count) {
    return mallopt(M_ARENA_MAX, count);
}

#include <spawn.h>

int feedsh_spawn_close_from(posix_spawn_file_actions_t *actions, int lowest) {
    return posix_spawn_file_actions_addclosefrom_np(actions, lowest);
}

int feedsh_spawn_setsid_flag(void) {
    return POSIX_SPAWN_SETSID;
}

int feedsh_pipe_cloexec(int fds[2]) {
    return pipe2(fds, O_CLOEXEC);
}
