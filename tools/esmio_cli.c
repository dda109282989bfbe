/* The esmio command: what a user asks of an installed esmio without writing a program.
 *   esmio --version              the library's version
 *   esmio --settings [TEXT]      the effective instance settings for TEXT ("key=value,...")
 *                                with the ESMIO_* environment applied, as esmio_init sees them,
 *                                and how the I/O tasks were chosen
 *   esmio --settings-help        every setting: variable, kind, default, meaning (docs/settings.md)
 *   esmio --strerror CODE        the message of an error code */
#include <esmio.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "settings_help.h"

static int usage(FILE *out) {
  fprintf(out,
          "usage: esmio --version | --settings [SETTINGS] | --settings-help | --strerror CODE |\n"
          "             --help\n"
          "  --version          print the version of the esmio library\n"
          "  --settings [TEXT]  print the effective settings of an instance made with TEXT and\n"
          "                     the ESMIO_* environment, and how its I/O tasks were chosen\n"
          "                     (one process, or every rank under mpirun)\n"
          "  --settings-help    print the reference of every setting (docs/settings.md)\n"
          "  --strerror CODE    print the message of an esmio error code\n");
  return out == stdout ? 0 : 2;
}

/* Under mpirun the instance spans MPI_COMM_WORLD (the I/O tasks chosen for that run); rank 0
 * prints. */
static int print_settings(const char *text) {
  MPI_Init(NULL, NULL);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  esmio_t io;
  int rc = esmio_init(MPI_COMM_WORLD, text, &io);
  if (rc == ESMIO_NOERR) {
    char buf[65536];
    rc = esmio_inq_settings(io, buf, sizeof buf);
    if (rc == ESMIO_NOERR && rank == 0) printf("%s\n", buf);
    if (rc == ESMIO_NOERR) rc = esmio_inq_iolayout(io, buf, sizeof buf);
    if (rc == ESMIO_NOERR && rank == 0) printf("# I/O tasks: %s\n", buf);
    esmio_finalize(&io);
  }
  if (rc != ESMIO_NOERR) fprintf(stderr, "esmio: %s\n", esmio_last_error());
  MPI_Finalize();
  return rc == ESMIO_NOERR ? 0 : 1;
}

int main(int argc, char **argv) {
  if (argc < 2) return usage(stderr);
  const char *what = argv[1];
  if (strcmp(what, "--help") == 0 || strcmp(what, "-h") == 0) return usage(stdout);
  if (strcmp(what, "--version") == 0 && argc == 2) {
    printf("esmio %s\n", esmio_version());
    return 0;
  }
  if (strcmp(what, "--settings") == 0 && argc <= 3) return print_settings(argc == 3 ? argv[2] : "");
  if (strcmp(what, "--settings-help") == 0 && argc == 2) {
    settings_help(stdout);
    return 0;
  }
  if (strcmp(what, "--strerror") == 0 && argc == 3) {
    char *end = NULL;
    const long code = strtol(argv[2], &end, 10);
    if (end == argv[2] || *end != '\0') return usage(stderr);
    printf("%s\n", esmio_strerror((int)code));
    return 0;
  }
  return usage(stderr);
}
