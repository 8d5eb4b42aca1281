#define _GNU_SOURCE
#include <fcntl.h>
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
