/* Test only, never installed: a preload library that ends its process with SIGKILL
 * halfway through writing a checkpoint, as the out-of-memory killer could: the
 * CHECKPOINT_KILL_AT-th write to a temporary file of RUN/checkpoints/rank-N
 * (N = CHECKPOINT_KILL_RANK) writes half its bytes, then the process is killed.
 * Without both variables every write goes straight through. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

static int g_checkpoint_writes = 0;

ssize_t write(int fd, const void* buffer, size_t bytes) {
  static ssize_t (*real)(int, const void*, size_t) = NULL;
  if (real == NULL) real = (ssize_t(*)(int, const void*, size_t))dlsym(RTLD_NEXT, "write");
  const char* at = getenv("CHECKPOINT_KILL_AT");
  const char* rank = getenv("CHECKPOINT_KILL_RANK");
  if (at != NULL && rank != NULL && bytes > 16) {
    char link[64], path[4096], wanted[64];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    const ssize_t length = readlink(link, path, sizeof path - 1);
    snprintf(wanted, sizeof wanted, "/checkpoints/rank-%s.partial-", rank);
    if (length > 0) {
      path[length] = '\0';
      if (strstr(path, wanted) != NULL && ++g_checkpoint_writes == atoi(at)) {
        real(fd, buffer, bytes / 2);
        kill(getpid(), SIGKILL);
      }
    }
  }
  return real(fd, buffer, bytes);
}
