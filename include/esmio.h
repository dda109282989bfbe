/*
 * esmio: parallel netCDF output for Earth-system models.
 *
 * The public C API. Every function returns ESMIO_NOERR (0) or a negative error code; a
 * collective function returns the same code on every rank of its communicator, and
 * esmio_last_error() then holds a message naming the file, variable and cause.
 *
 * The declarations are grouped by the object they act on: the library itself (version, error
 * messages), the instance, decompositions, files, a file's definitions, inquiry, data, and the
 * trace. Every function's comment begins with "Collective." or "Local.":
 *   Collective: every rank of the communicator named there calls it, in the same order, with
 *     the same arguments (buffers and decompositions excepted); ranks that disagree get
 *     ESMIO_EMISMATCH, all of them, instead of a hang. "The instance's communicator" is the one
 *     esmio_inq_comm gives: esmio_init's comm, or its compute ranks in asynchronous mode. A
 *     file's or a decomposition's communicator is that of the instance it was made with.
 *   Local: involves no other rank.
 * A bad handle is reported locally by every call (there is no communicator to agree over):
 * pass the same handles on every rank.
 *
 * Shaped for thin bindings (Fortran ISO_C_BINDING, Python ctypes): opaque handles, no
 * varargs, explicit lengths, 64-bit sizes and offsets, settings passed as one string
 * "key=value,key=value" (the keys: docs/settings.md or `esmio --settings-help`; ESMIO_*
 * environment variables override).
 */
#ifndef ESMIO_H
#define ESMIO_H

#include <mpi.h>
#include <stdint.h>

/* ESMIO_API marks the functions of this header: libesmio is built with hidden visibility, and
 * they are all that it exports. */
#ifndef ESMIO_API
#if defined(__GNUC__) || defined(__clang__)
#define ESMIO_API __attribute__((visibility("default")))
#else
#define ESMIO_API
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- error codes ---------------------------------------------------------------------- */
#define ESMIO_NOERR 0
#define ESMIO_EINVAL (-1)       /* invalid argument (null pointer, bad length, bad name) */
#define ESMIO_ENOMEM (-2)       /* out of memory */
#define ESMIO_EBADID (-3)       /* bad handle, dimension id or variable id */
#define ESMIO_ENOTVAR (-4)      /* no variable of that name */
#define ESMIO_ENOTDIM (-5)      /* no dimension of that name */
#define ESMIO_EINDEFINE (-6)    /* data access while the file is in define mode */
#define ESMIO_ENOTINDEFINE (-7) /* definition while the file is in data mode */
#define ESMIO_ERANGE (-8)       /* values out of range of the file type (written as fill) */
#define ESMIO_EBADTYPE (-9)     /* type unknown, or no conversion between the two types */
#define ESMIO_EDECOMP (-10)     /* decomposition offsets out of range or duplicated */
#define ESMIO_ESHAPE (-11)      /* decomposition does not fit the variable's shape */
#define ESMIO_EBUFSIZE (-12)    /* buffer shorter than the local part of the decomposition */
#define ESMIO_ERECORD (-13)     /* negative record, beyond the data on read, or too far on write */
#define ESMIO_EIO (-14)         /* the file system refused (missing directory, permission) */
#define ESMIO_ENOTNC (-15)      /* not a netCDF file */
#define ESMIO_EBACKEND (-16)    /* the storage library reported an error */
#define ESMIO_EBADNAME (-17)    /* unknown backend, format, layout or setting key */
#define ESMIO_ENOTBUILT (-18)   /* backend known but not built into this library */
#define ESMIO_ESETTING (-19)    /* bad value for a setting */
#define ESMIO_EMPI (-20)        /* an MPI call failed */
#define ESMIO_EPERM (-21)       /* write to a file opened read-only */
#define ESMIO_EEXIST (-22)      /* file exists and clobber=false */
#define ESMIO_ENAMEINUSE (-23)  /* name already defined */
#define ESMIO_EMAXDIMS (-24)    /* too many dimensions */
#define ESMIO_EUNLIMPOS (-25)   /* unlimited dimension not first, or more than one */
#define ESMIO_EMISMATCH (-26)   /* ranks passed different arguments to a collective call */
#define ESMIO_ECORRUPT (-27)    /* the file is shorter than its header says (truncated) */
#define ESMIO_ENOSPC (-28)      /* no space left: disk full, quota or file-size limit */
#define ESMIO_ENOTATT (-29)     /* no attribute of that name (or number) */
#define ESMIO_ECHECKSUM (-30)   /* a staged file's copy does not read back as it was written */

/* ---- types: the values are netCDF's nc_type codes --------------------------------------- */
typedef enum {
  ESMIO_BYTE = 1,   /* int8 */
  ESMIO_CHAR = 2,   /* text */
  ESMIO_SHORT = 3,  /* int16 */
  ESMIO_INT = 4,    /* int32 */
  ESMIO_FLOAT = 5,  /* float32 */
  ESMIO_DOUBLE = 6, /* float64 */
  ESMIO_UBYTE = 7,  /* uint8 (CDF-5 and netCDF-4 only, as the three below) */
  ESMIO_USHORT = 8, /* uint16 */
  ESMIO_UINT = 9,   /* uint32 */
  ESMIO_INT64 = 10, /* int64 */
  ESMIO_UINT64 = 11 /* uint64 */
} esmio_type;

#define ESMIO_GLOBAL (-1)  /* varid for global attributes */
#define ESMIO_UNLIMITED 0  /* dimension length of the record dimension */
#define ESMIO_MAX_DIMS 16  /* most dimensions of one variable */
#define ESMIO_MAX_NAME 256 /* longest name, terminating NUL included */

/* open modes */
#define ESMIO_NOWRITE 0
#define ESMIO_WRITE 1

/* Handles are opaque numbers, not pointers: a copy of a closed file's, freed decomposition's or
 * finalized instance's handle, or a handle of another kind, gives ESMIO_EBADID. */
typedef struct esmio_instance *esmio_t;
typedef struct esmio_file *esmio_file_t;
typedef struct esmio_decomp *esmio_decomp_t;

/* The version of this header; esmio_version() gives the library's. */
#define ESMIO_VERSION_MAJOR 0
#define ESMIO_VERSION_MINOR 1
#define ESMIO_VERSION_PATCH 0

/* ---- the library: version and error messages ------------------------------------------ */
/* Local. Needs no MPI. The library's version ("0.1.0"). */
ESMIO_API const char *esmio_version(void);
/* Local. Needs no MPI. The message of an error code. */
ESMIO_API const char *esmio_strerror(int code);
/* Local. Needs no MPI. The message of the last error returned on this thread (empty if none). */
ESMIO_API const char *esmio_last_error(void);

/* ---- instance ------------------------------------------------------------------------- */
/* Collective over comm (duplicated internally). settings may be NULL or "": instance keys
 * num_iotasks, iotask_stride, iotask_offset, layout, and file defaults (backend, format, ...). */
ESMIO_API int esmio_init(MPI_Comm comm, const char *settings, esmio_t *io);
/* Collective over comm. The same, for Fortran: comm is a Fortran MPI communicator handle. */
ESMIO_API int esmio_init_f(MPI_Fint comm, const char *settings, esmio_t *io);
/* Collective over the instance's communicator. Every file and decomposition of the instance
 * must be closed/freed first. In asynchronous mode it also returns the first failure of a
 * decomposition on the servers, and releases the servers; on a server's instance it is local. */
ESMIO_API int esmio_finalize(esmio_t *io);
/* Collective over the instance's communicator. With stage_copy=background or finalize (see the
 * stage_* settings), waits until the staged file closed under path is copied to path, verified
 * and renamed into place, and returns the outcome of its copy-back (the same on every rank).
 * With I/O servers and io_server_close=background, waits first until the servers have closed
 * the file, and returns the outcome of that close (of a path closed so twice, the first
 * failure). ESMIO_EINVAL if nothing of path is pending
 * (never staged, published already, not closed in the background, or waited for already).
 * esmio_finalize waits for every one. */
ESMIO_API int esmio_stage_wait(esmio_t io, const char *path);

/* Asynchronous mode (settings io_servers=K, io_server_placement, io_server_groups,
 * async_buffer; docs/async.md). esmio_init on the whole job's communicator makes K ranks I/O
 * servers: on those, esmio_init serves until the compute ranks call esmio_finalize, then
 * returns an instance whose role is ESMIO_ROLE_SERVER (call esmio_finalize on it and skip the
 * model). Everywhere else the role is ESMIO_ROLE_COMPUTE, and every call works as without
 * servers over the compute ranks' communicator. */
#define ESMIO_ROLE_COMPUTE 0
#define ESMIO_ROLE_SERVER 1
/* Local. This rank's role. */
ESMIO_API int esmio_inq_role(esmio_t io, int *role);
/* Local. The communicator of the ranks that call esmio (all of esmio_init's ranks without
 * servers, the compute ranks with them; MPI_COMM_NULL on a server). Owned by esmio and valid
 * until esmio_finalize: the model computes on it (MPI_Comm_dup it to keep it longer). */
ESMIO_API int esmio_inq_comm(esmio_t io, MPI_Comm *comm);
/* Local. The same, for Fortran: a Fortran MPI communicator handle. */
ESMIO_API int esmio_inq_comm_f(esmio_t io, MPI_Fint *comm);
/* Local. Effective settings of the instance as "key=value,..." (buf of length buflen,
 * NUL-terminated; ESMIO_EINVAL if too short): every key, booleans as true/false, num_iotasks
 * resolved; valid settings for esmio_init. */
ESMIO_API int esmio_inq_settings(esmio_t io, char *buf, int64_t buflen);
/* Local. Number of I/O tasks and whether this rank is one. */
ESMIO_API int esmio_inq_iotasks(esmio_t io, int *num_iotasks, int *is_iotask);
/* Local. How the I/O tasks were chosen, one line of text (buf of length buflen, NUL-terminated;
 * ESMIO_EINVAL if too short): with num_iotasks=0 the automatic rule's inputs (ranks, nodes, the
 * most ranks on a node) and its outcome, else the settings' tasks. */
ESMIO_API int esmio_inq_iolayout(esmio_t io, char *buf, int64_t buflen);

/* ---- decompositions ------------------------------------------------------------------- */
/* Collective over the instance's communicator. The rank's elements, in memory order, given as
 * global linear offsets (C order, 0-based) into the variable's non-record shape dims[0..ndims);
 * -1 marks an element nobody writes from this rank (its memory slot is skipped). Checked for
 * range and duplicates. */
ESMIO_API int esmio_decomp_create(esmio_t io, int ndims, const int64_t *dims, int64_t nlocal,
                                  const int64_t *offsets, esmio_decomp_t *decomp);
/* Collective over the instance's communicator. The rank holds the block
 * start[d]..start[d]+count[d] of the file shape dims (both in file dimension order), stored in
 * memory with C-order dimensions mem_order: mem_order[i] is the file dimension that is the i-th
 * (slowest first) memory dimension. CAM's A(lon,lev,lat) (Fortran), file (lev,lat,lon):
 * mem_order = {1, 0, 2}. NULL = file order. */
ESMIO_API int esmio_decomp_create_block(esmio_t io, int ndims, const int64_t *dims,
                                        const int64_t *start, const int64_t *count,
                                        const int *mem_order, esmio_decomp_t *decomp);
/* Collective over the instance's communicator. format: "pio" (PIO's text format, version
 * 2001), "esmio" (esmio's text format), "e3sm:D<k>" (decomposition k of an E3SM-IO map_*.nc
 * file). A file written for P processes read on N ranks gives rank r the pieces of processes
 * r, r+N, r+2N, ... in order; on N > P ranks, the ranks r, r+P, r+2P, ... share process
 * r mod P's elements in consecutive parts. */
ESMIO_API int esmio_decomp_load(esmio_t io, const char *path, const char *format,
                                esmio_decomp_t *decomp);
/* Collective over the decomposition's communicator. format: "pio" or "esmio". Rank 0 writes;
 * no rank holds the whole map. */
ESMIO_API int esmio_decomp_save(esmio_decomp_t decomp, const char *path, const char *format);
/* Local. dims: room for ESMIO_MAX_DIMS. */
ESMIO_API int esmio_decomp_inq(esmio_decomp_t decomp, int *ndims, int64_t *dims, int64_t *nlocal);
/* Local. This rank's offsets (len >= nlocal). */
ESMIO_API int esmio_decomp_inq_offsets(esmio_decomp_t decomp, int64_t *offsets, int64_t len);
/* Local. Every rank frees its handle before esmio_finalize (which checks). */
ESMIO_API int esmio_decomp_free(esmio_decomp_t *decomp);

/* ---- files ---------------------------------------------------------------------------- */
/* Collective over the instance's communicator. settings: backend (auto|pnetcdf|netcdf4|
 * serial), format (auto|cdf1|cdf2|cdf5|netcdf4), clobber, header_pad, cache, ... (the file
 * keys of docs/settings.md). */
ESMIO_API int esmio_create(esmio_t io, const char *path, const char *settings, esmio_file_t *file);
/* Collective over the instance's communicator. mode: ESMIO_NOWRITE or ESMIO_WRITE; settings
 * as for esmio_create. */
ESMIO_API int esmio_open(esmio_t io, const char *path, int mode, const char *settings,
                         esmio_file_t *file);
/* Collective over the file's communicator. Flushes the write cache and makes what was written
 * durable and visible. */
ESMIO_API int esmio_sync(esmio_file_t file);
/* Collective over the file's communicator. Flushes, closes and sets *file to NULL; on an error
 * the file is closed all the same (the message says what was lost), except ESMIO_EMISMATCH (the
 * ranks are not all closing this file): then nothing is done and the handle stays valid. */
ESMIO_API int esmio_close(esmio_file_t *file);
/* Local. Effective settings of an open file ("key=value,..."), backend and format resolved. */
ESMIO_API int esmio_inq_file_settings(esmio_file_t file, char *buf, int64_t buflen);

/* ---- definitions: dimensions, variables, attributes (define mode) ---------------------- */
/* Collective over the file's communicator. */
ESMIO_API int esmio_def_dim(esmio_file_t file, const char *name, int64_t len, int *dimid);
/* Collective over the file's communicator. */
ESMIO_API int esmio_def_var(esmio_file_t file, const char *name, esmio_type type, int ndims,
                            const int *dimids, int *varid);
/* Collective over the file's communicator. Fill value for holes and out-of-range values;
 * fill_value points to one value of the variable's type. Also written as the _FillValue
 * attribute. */
ESMIO_API int esmio_def_var_fill(esmio_file_t file, int varid, const void *fill_value);
/* Collective over the file's communicator. The same with the fill value given as one value of
 * memtype, converted to the variable's type (ESMIO_ERANGE on every rank if it does not fit):
 * for bindings whose numbers carry their type. */
ESMIO_API int esmio_def_var_fill_typed(esmio_file_t file, int varid, esmio_type memtype,
                                       const void *fill_value);
/* netCDF-4 storage of a variable, before esmio_enddef (the chunking / compression / quantize
 * settings name variables too, and their entries for a variable win over these calls). */
/* Collective over the file's communicator. chunks: one length per dimension, record dimension
 * first (ndims 0 and NULL: esmio's default, one unit of the box layout per chunk). */
ESMIO_API int esmio_def_var_chunking(esmio_file_t file, int varid, int ndims,
                                     const int64_t *chunks);
/* Collective over the file's communicator. spec: "none" | "deflate[:1-9][:shuffle]" |
 * "zstd[:LEVEL][:shuffle]". */
ESMIO_API int esmio_def_var_compress(esmio_file_t file, int varid, const char *spec);
/* Collective over the file's communicator. spec: "none" | "bitround:NSB" | "granularbr:NSD" |
 * "information[:F][:maxrel=E][:minbits=N]" (E: the largest relative error allowed; N: the
 * fewest mantissa bits kept where the reference keeps any, default 4). */
ESMIO_API int esmio_def_var_quantize(esmio_file_t file, int varid, const char *spec);
/* Collective over the file's communicator. Attributes: len values of type; ESMIO_CHAR for text
 * (len bytes, no NUL needed). */
ESMIO_API int esmio_put_att(esmio_file_t file, int varid, const char *name, esmio_type type,
                            int64_t len, const void *values);
/* Collective over the file's communicator. Leaves define mode. */
ESMIO_API int esmio_enddef(esmio_file_t file);
/* Collective over the file's communicator. Enters define mode again. */
ESMIO_API int esmio_redef(esmio_file_t file);

/* ---- inquiry -------------------------------------------------------------------------- */
/* Dimensions and variables: local, every rank holds the definitions. Names: name is a buffer
 * of buflen bytes (ESMIO_MAX_NAME is always enough); the name is NUL-terminated. These serve a
 * client that lists what a file holds (Python's File.dimensions, .variables). */
/* Local. Number of dimensions. */
ESMIO_API int esmio_inq_ndims(esmio_file_t file, int *ndims);
/* Local. The unlimited dimension (-1 if none). */
ESMIO_API int esmio_inq_unlimdim(esmio_file_t file, int *dimid);
/* Local. */
ESMIO_API int esmio_inq_dimid(esmio_file_t file, const char *name, int *dimid);
/* Local. */
ESMIO_API int esmio_inq_dimlen(esmio_file_t file, int dimid, int64_t *len);
/* Local. */
ESMIO_API int esmio_inq_dimname(esmio_file_t file, int dimid, char *name, int64_t buflen);
/* Local. */
ESMIO_API int esmio_inq_nvars(esmio_file_t file, int *nvars);
/* Local. */
ESMIO_API int esmio_inq_varid(esmio_file_t file, const char *name, int *varid);
/* Local. dimids may be NULL; otherwise room for ESMIO_MAX_DIMS. */
ESMIO_API int esmio_inq_var(esmio_file_t file, int varid, esmio_type *type, int *ndims,
                            int *dimids);
/* Local. */
ESMIO_API int esmio_inq_varname(esmio_file_t file, int varid, char *name, int64_t buflen);
/* Local. Number of records written so far (length of the unlimited dimension). */
ESMIO_API int esmio_inq_nrecords(esmio_file_t file, int64_t *nrecords);
/* Attributes of varid (ESMIO_GLOBAL: the file's), numbered from 0 in netCDF's order: collective
 * (they are read where the file is held and broadcast). A missing attribute: ESMIO_ENOTATT. */
/* Collective over the file's communicator. */
ESMIO_API int esmio_inq_natts(esmio_file_t file, int varid, int *natts);
/* Collective over the file's communicator. */
ESMIO_API int esmio_inq_attname(esmio_file_t file, int varid, int attnum, char *name,
                                int64_t buflen);
/* Collective over the file's communicator. */
ESMIO_API int esmio_inq_att(esmio_file_t file, int varid, const char *name, esmio_type *type,
                            int64_t *len);
/* Collective over the file's communicator. len must be the attribute's number of values. */
ESMIO_API int esmio_get_att(esmio_file_t file, int varid, const char *name, esmio_type memtype,
                            int64_t len, void *values);

/* ---- data ----------------------------------------------------------------------------- */
/* Decomposed: one record (ignored, must be 0, for variables without the record dimension) of
 * one variable through a decomposition: buf holds nelems >= the decomposition's local count
 * values of memtype. A call refused on some ranks only (nelems too small: ESMIO_EBUFSIZE there;
 * with agree_writes=flush the other ranks return success and cache it) is taken back on every
 * rank at the next flush, as if it had never been made; the calls after it are written. Unless
 * a later call writes the same record of the same variable before the next esmio_sync or
 * esmio_close, that sync or close returns the refusal's code on every rank, naming the call,
 * the rank and the cause. With agree_writes=call every rank gets the code from the call. */
/* Collective over the file's communicator. */
ESMIO_API int esmio_write_darray(esmio_file_t file, int varid, int64_t record,
                                 esmio_decomp_t decomp, esmio_type memtype, const void *buf,
                                 int64_t nelems);
/* Collective over the file's communicator. Leaves the memory slots of holes (offset -1)
 * untouched. */
ESMIO_API int esmio_read_darray(esmio_file_t file, int varid, int64_t record, esmio_decomp_t decomp,
                                esmio_type memtype, void *buf, int64_t nelems);
/* Undecomposed (coordinates, time): every rank passes the same values. start/count have one
 * entry per dimension of the variable (the record dimension included). */
/* Collective over the file's communicator. */
ESMIO_API int esmio_put_vara(esmio_file_t file, int varid, const int64_t *start,
                             const int64_t *count, esmio_type memtype, const void *buf);
/* Collective over the file's communicator. Every rank receives the values. */
ESMIO_API int esmio_get_vara(esmio_file_t file, int varid, const int64_t *start,
                             const int64_t *count, esmio_type memtype, void *buf);
/* Collective over the file's communicator. Whole variable (a fixed-size variable, or all
 * records written so far). put_var of a record variable writes nelems / record size records
 * from record 0; nelems must be whole records. */
ESMIO_API int esmio_put_var(esmio_file_t file, int varid, esmio_type memtype, const void *buf,
                            int64_t nelems);
/* Collective over the file's communicator. Every rank receives the values. */
ESMIO_API int esmio_get_var(esmio_file_t file, int varid, esmio_type memtype, void *buf,
                            int64_t nelems);

/* ---- trace: where the time goes ------------------------------------------------------
 * Every boundary of the data path counts calls, bytes and seconds on each rank, always (the
 * cost is two clock reads per call). With ESMIO_TRACE=path.json, esmio_finalize writes every
 * rank's counters, per file and in total, with the effective settings, to path.json.
 * Two kinds of counter, which nest: an API counter times a whole call, and the phase counters
 * time the steps inside it, wherever they happen. Phases of one call add up to at most its
 * API counter; API counters do not overlap each other.
 * API counters:
 *   "open"            create and open
 *   "define"          def_dim, def_var, def_var_fill(_typed), put_att, enddef, redef
 *   "write_darray", "read_darray"   whole calls: the phases below, and (write_darray) the cache
 *                     flushes a full cache triggers
 *   "put_vara", "get_vara"          whole calls, put_var/get_var included
 *   "sync"            esmio_sync: the flush of the cache and the file system's sync
 *   "close"           esmio_close: the last flush and the close
 *   "plan"            esmio_decomp_create/_block/_load: building the rearrangement plans
 *   (bytes of write_darray, read_darray, put_vara and get_vara: the caller's buffer, in the
 *   memory type; of the others: 0)
 * Phase counters, inside write_darray, read_darray, put/get_vara, sync and close:
 *   "convert"         type conversion and packing on the compute rank (bytes: converted output)
 *   "rearrange"       the MPI exchange between compute ranks and I/O tasks (bytes: sent +
 *                     received)
 *   "place"           on an I/O task: what arrived put in file order into its buffer, holes
 *                     filled (writes; bytes: the buffer), or each rank's elements taken out
 *                     of what it read (reads; bytes: those elements)
 *   "backend_write"   requests handed to the storage library (bytes: this rank's data)
 *   "backend_read"    the same, for reads
 *   "read_ahead"      inside read_darray: an I/O task handing what it is predicted to read
 *                     next to its read-ahead thread (setting read_ahead; bytes: those asked for)
 *   "async_post"      asynchronous mode: a call written into the buffer the I/O servers read
 *                     (bytes: the message)
 *   "async_wait"      asynchronous mode: waiting for buffer space the servers have not freed
 *                     yet (back-pressure; bytes: the message that waited)
 *   "stage_copy"      staging: a staged file's copy-back, verification and rename, in
 *                     esmio_close, esmio_stage_wait or esmio_finalize (bytes: the file's)
 *   "stage_write"     inside stage_copy: this rank's blocks read from the stage and written
 *                     to the target (bytes: those blocks; in the background, counted when
 *                     the copy is waited for)
 *   "stage_verify"    inside stage_copy: this rank's blocks made durable (fdatasync) and read
 *                     back past the page cache to compare checksums
 * I/O server counters (asynchronous mode, in the servers' entries of the report):
 *   "serve_wait"      a server waiting for its compute ranks' next call (idle)
 *   "serve_receive"   a server reading calls out of its compute ranks' buffers (bytes: the
 *                     messages read)
 *   The servers replay each call on their own instance: their API and phase counters are those
 *   of the replayed calls.
 * So with the write cache on, a write_darray that only buffers shows no backend_write, and
 * the close (or the write_darray that filled the cache) carries the rearrange and backend_write
 * of the flush.
 */
typedef struct {
  int64_t calls;
  int64_t bytes;
  double seconds;
} esmio_counter;

#define ESMIO_TRACE_BINS 48 /* request-size histogram: bin b counts sizes in [2^b, 2^(b+1)) */

/* Local. This rank's totals since init or the last reset. */
ESMIO_API int esmio_trace_counter(esmio_t io, const char *name, esmio_counter *counter);
/* Local. This rank's histogram of backend request sizes in bytes (bins[ESMIO_TRACE_BINS]); bin 0
 * also counts empty requests. */
ESMIO_API int esmio_trace_histogram(esmio_t io, int64_t *bins);
/* Local. In asynchronous mode it resets this compute rank's counters only; the I/O servers'
 * count from esmio_init. */
ESMIO_API int esmio_trace_reset(esmio_t io);
/* Collective over the instance's communicator: writes the report that ESMIO_TRACE writes at
 * esmio_finalize — every rank's counters since init or the last reset and, with the timeline on
 * (the trace or trace_timeline setting), its spans — to path now; in asynchronous mode the I/O
 * servers' too (the servers answer). ESMIO_EIO (on every rank) when path cannot be written. */
ESMIO_API int esmio_trace_write(esmio_t io, const char *path);

#ifdef __cplusplus
}
#endif
#endif /* ESMIO_H */
