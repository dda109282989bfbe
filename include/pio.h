/*
 * pio.h: the C interface of NCAR's ParallelIO (PIO 2.7) on top of esmio.
 *
 * A model written against PIO's C functions (PIOc_*) builds with this header and links with
 * -lesmio_pio -lesmio instead of -lpioc. The names, argument lists and constant values are
 * PIO's (and netCDF's, which PIO takes its types, modes and error codes from), so that the
 * model's code and its compiled objects need no change. docs/pio.md lists what is implemented
 * and how each PIO concept (iotype, rearranger, error mode, frame) maps onto esmio.
 */
#ifndef ESMIO_PIO_H
#define ESMIO_PIO_H

#include <mpi.h>
#include <netcdf.h>
#include <stdbool.h>
/* PIO's header brings these in, and PIO programs rely on it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Offsets and lengths: MPI's 64-bit offset, as in PIO. */
#define PIO_Offset MPI_Offset
#define PIO_OFFSET MPI_OFFSET

#define PIO_DEFAULT (-1) /* iosysid of the default error handler */
#define PIO_MAX_NAME NC_MAX_NAME
#define PIO_MAX_VAR_DIMS NC_MAX_VAR_DIMS
#define PIO_MAX_DIMS NC_MAX_DIMS
#define PIO_MAX_VARS NC_MAX_VARS

/* How files are written: the iotype. */
enum PIO_IOTYPE {
  PIO_IOTYPE_PNETCDF = 1,  /* classic formats through PnetCDF (parallel) */
  PIO_IOTYPE_NETCDF = 2,   /* classic formats, serial netCDF */
  PIO_IOTYPE_NETCDF4C = 3, /* netCDF-4/HDF5, compressed (serial in PIO) */
  PIO_IOTYPE_NETCDF4P = 4, /* netCDF-4/HDF5, parallel */
  PIO_IOTYPE_GDAL = 5      /* GDAL (refused: PIO_EINVAL, as an unknown iotype) */
};

/* Which I/O task handles which part of a field. */
enum PIO_REARRANGERS { PIO_REARR_BOX = 1, PIO_REARR_SUBSET = 2 };

/* What a failing call does. */
enum PIO_ERROR_HANDLERS {
  PIO_INTERNAL_ERROR = (-51), /* print a message naming the call, then MPI_Abort */
  PIO_BCAST_ERROR = (-52),    /* return the code, the same on every task */
  PIO_RETURN_ERROR = (-53)    /* return the code */
};

/* Rearranger communication options (accepted, see PIOc_set_rearr_opts). */
enum PIO_REARR_COMM_TYPE { PIO_REARR_COMM_P2P = (0), PIO_REARR_COMM_COLL };
enum PIO_REARR_COMM_FC_DIR {
  PIO_REARR_COMM_FC_2D_ENABLE = (0),
  PIO_REARR_COMM_FC_1D_COMP2IO,
  PIO_REARR_COMM_FC_1D_IO2COMP,
  PIO_REARR_COMM_FC_2D_DISABLE
};
#define PIO_REARR_COMM_UNLIMITED_PEND_REQ (-1)
/* Rearranger options as PIO_init passes them from Fortran (accepted, see PIOc_set_rearr_opts). */
typedef struct rearr_comm_fc_opt {
  bool hs;          /* handshake */
  bool isend;       /* non-blocking sends */
  int max_pend_req; /* requests in flight, or PIO_REARR_COMM_UNLIMITED_PEND_REQ */
} rearr_comm_fc_opt_t;
typedef struct rearr_opt {
  int comm_type; /* PIO_REARR_COMM_TYPE */
  int fcd;       /* PIO_REARR_COMM_FC_DIR */
  rearr_comm_fc_opt_t comp2io;
  rearr_comm_fc_opt_t io2comp;
} rearr_opt_t;

/* Types, modes and ids: netCDF's. */
#define PIO_GLOBAL NC_GLOBAL
#define PIO_UNLIMITED NC_UNLIMITED
#define PIO_BYTE NC_BYTE
#define PIO_CHAR NC_CHAR
#define PIO_SHORT NC_SHORT
#define PIO_INT NC_INT
#define PIO_FLOAT NC_FLOAT
#define PIO_REAL NC_FLOAT
#define PIO_DOUBLE NC_DOUBLE
#define PIO_UBYTE NC_UBYTE
#define PIO_USHORT NC_USHORT
#define PIO_UINT NC_UINT
#define PIO_INT64 NC_INT64
#define PIO_UINT64 NC_UINT64
#define PIO_STRING NC_STRING
#define PIO_WRITE NC_WRITE
#define PIO_NOWRITE NC_NOWRITE
#define PIO_CLOBBER NC_CLOBBER
#define PIO_NOCLOBBER NC_NOCLOBBER
#define PIO_FILL NC_FILL
#define PIO_NOFILL NC_NOFILL
#define PIO_64BIT_OFFSET NC_64BIT_OFFSET
#define PIO_64BIT_DATA NC_64BIT_DATA
#define PIO_FILL_BYTE NC_FILL_BYTE
#define PIO_FILL_CHAR NC_FILL_CHAR
#define PIO_FILL_SHORT NC_FILL_SHORT
#define PIO_FILL_INT NC_FILL_INT
#define PIO_FILL_FLOAT NC_FILL_FLOAT
#define PIO_FILL_DOUBLE NC_FILL_DOUBLE
#define PIO_FILL_UBYTE NC_FILL_UBYTE
#define PIO_FILL_USHORT NC_FILL_USHORT
#define PIO_FILL_UINT NC_FILL_UINT
#define PIO_FILL_INT64 NC_FILL_INT64
#define PIO_FILL_UINT64 NC_FILL_UINT64
#define PIO_NOQUANTIZE NC_NOQUANTIZE
#define PIO_QUANTIZE_BITGROOM NC_QUANTIZE_BITGROOM /* refused: esmio has no BitGroom */
#define PIO_QUANTIZE_GRANULARBR NC_QUANTIZE_GRANULARBR
#define PIO_QUANTIZE_BITROUND NC_QUANTIZE_BITROUND

/* Error codes: netCDF's, and PIO's own from -500. */
#define PIO_NOERR NC_NOERR
#define PIO_EBADID NC_EBADID
#define PIO_ENFILE NC_ENFILE
#define PIO_EEXIST NC_EEXIST
#define PIO_EINVAL NC_EINVAL
#define PIO_EPERM NC_EPERM
#define PIO_ENOTINDEFINE NC_ENOTINDEFINE
#define PIO_EINDEFINE NC_EINDEFINE
#define PIO_EINVALCOORDS NC_EINVALCOORDS
#define PIO_EMAXDIMS NC_EMAXDIMS
#define PIO_ENAMEINUSE NC_ENAMEINUSE
#define PIO_ENOTATT NC_ENOTATT
#define PIO_EMAXATTS NC_EMAXATTS
#define PIO_EBADTYPE NC_EBADTYPE
#define PIO_EBADDIM NC_EBADDIM
#define PIO_EUNLIMPOS NC_EUNLIMPOS
#define PIO_EMAXVARS NC_EMAXVARS
#define PIO_ENOTVAR NC_ENOTVAR
#define PIO_EGLOBAL NC_EGLOBAL
#define PIO_ENOTNC NC_ENOTNC
#define PIO_ESTS NC_ESTS
#define PIO_EMAXNAME NC_EMAXNAME
#define PIO_EUNLIMIT NC_EUNLIMIT
#define PIO_ENORECVARS NC_ENORECVARS
#define PIO_ECHAR NC_ECHAR
#define PIO_EEDGE NC_EEDGE
#define PIO_ESTRIDE NC_ESTRIDE
#define PIO_EBADNAME NC_EBADNAME
#define PIO_ERANGE NC_ERANGE
#define PIO_ENOMEM NC_ENOMEM
#define PIO_EVARSIZE NC_EVARSIZE
#define PIO_EDIMSIZE NC_EDIMSIZE
#define PIO_ETRUNC NC_ETRUNC
#define PIO_EIO NC_EIO
#define PIO_EHDFERR NC_EHDFERR
#define PIO_ENOTNC4 NC_ENOTNC4
#define PIO_ENOTBUILT NC_ENOTBUILT
#define PIO_EINDEP (-203)
#define PIO_EINSUFFBUF (-219)
#define PIO_FIRST_ERROR_CODE (-500)
#define PIO_EBADIOTYPE (-500)
#define PIO_EVARDIMMISMATCH (-501)
#define PIO_EBADREARR (-502)

#ifdef __cplusplus
extern "C" {
#endif

/* ---- errors ---------------------------------------------------------------------------- */
/* errstr: room for PIO_MAX_NAME + 1 characters. */
int PIOc_strerror(int pioerr, char *errstr);
/* Return the previous method (not an error code), as PIO does. */
int PIOc_Set_IOSystem_Error_Handling(int iosysid, int method);
int PIOc_set_iosystem_error_handling(int iosysid, int method, int *old_method);
/* The method is the file's I/O system's, as in PIO: this sets it for the whole I/O system. */
int PIOc_Set_File_Error_Handling(int ncid, int method);
int PIOc_set_log_level(int level);

/* ---- I/O systems ----------------------------------------------------------------------- */
int PIOc_Init_Intracomm(MPI_Comm comp_comm, int num_iotasks, int stride, int base, int rearr,
                        int *iosysidp);
/* The same for Fortran's PIO_init: f90_comp_comm is a Fortran communicator (MPI_Comm_c2f);
 * rearr_opts NULL, or options for PIOc_set_rearr_opts. */
int PIOc_Init_Intracomm_from_F90(int f90_comp_comm, const int num_iotasks, const int stride,
                                 const int base, const int rearr, rearr_opt_t *rearr_opts,
                                 int *iosysidp);
/* Asynchronous mode on esmio's I/O servers: one component (component_count 1), the I/O
 * processes (io_proc_list, NULL: the first num_io_procs tasks) the first, the last, or the last
 * task of each of equal blocks of world, the component's tasks (proc_list[0], NULL: the tasks
 * after the I/O processes) all the others; else PIO_EINVAL naming the lists. An I/O process
 * returns once the component has called PIOc_finalize, with iosysidp[0] -1. io_comm and
 * comp_comm[0]: the I/O processes' and the component's communicators (MPI_COMM_NULL on the
 * others), as in PIO. */
int PIOc_init_async(MPI_Comm world, int num_io_procs, int *io_proc_list, int component_count,
                    int *num_procs_per_comp, int **proc_list, MPI_Comm *io_comm,
                    MPI_Comm *comp_comm, int rearranger, int *iosysidp);
int PIOc_finalize(int iosysid);
int PIOc_free_iosystem(int iosysid);
int PIOc_get_numiotasks(int iosysid, int *numiotasks);
int PIOc_iam_iotask(int iosysid, bool *ioproc);
/* iorank: this task's rank among the I/O tasks, -1 if it is not one. */
int PIOc_iotask_rank(int iosysid, int *iorank);
int PIOc_iosystem_is_active(int iosysid, bool *active);
int PIOc_iotype_available(int iotype);
int PIOc_set_rearr_opts(int iosysid, int comm_type, int fcd, bool enable_hs_c2i,
                        bool enable_isend_c2i, int max_pend_req_c2i, bool enable_hs_i2c,
                        bool enable_isend_i2c, int max_pend_req_i2c);
int PIOc_set_hint(int iosysid, const char *hint, const char *hintval);
PIO_Offset PIOc_set_buffer_size_limit(PIO_Offset limit);
int PIOc_set_blocksize(int newblocksize);

/* ---- decompositions -------------------------------------------------------------------- */
/* compmap: 1-based global offsets, 0 for a hole. pio_type: the type of the arrays in memory. */
int PIOc_InitDecomp(int iosysid, int pio_type, int ndims, const int *gdimlen, int maplen,
                    const PIO_Offset *compmap, int *ioidp, const int *rearr,
                    const PIO_Offset *iostart, const PIO_Offset *iocount);
/* compmap: 0-based global offsets, -1 for a hole. */
int PIOc_init_decomp(int iosysid, int pio_type, int ndims, const int *gdimlen, int maplen,
                     const PIO_Offset *compmap, int *ioidp, int rearranger,
                     const PIO_Offset *iostart, const PIO_Offset *iocount);
int PIOc_freedecomp(int iosysid, int ioid);
int PIOc_get_local_array_size(int ioid);
/* PIO's netCDF decomposition files: cmode as for PIOc_create; title and history at most
 * PIO_MAX_NAME characters (NULL: none); fortran_order is recorded, the map is not reordered.
 * Reading needs as many tasks in comm as the file was written for; title and history receive
 * up to PIO_MAX_NAME + 1 characters. */
int PIOc_write_nc_decomp(int iosysid, const char *filename, int cmode, int ioid, char *title,
                         char *history, int fortran_order);
int PIOc_read_nc_decomp(int iosysid, const char *filename, int *ioid, MPI_Comm comm, int pio_type,
                        char *title, char *history, int *fortran_order);
/* The names in those files, as PIO's pio.h gives them. */
#define DECOMP_VERSION_ATT_NAME "PIO_library_version"
#define DECOMP_MAX_MAPLEN_ATT_NAME "max_maplen"
#define DECOMP_TITLE_ATT_NAME "title"
#define DECOMP_HISTORY_ATT_NAME "history"
#define DECOMP_SOURCE_ATT_NAME "source"
#define DECOMP_ORDER_ATT_NAME "array_order"
#define DECOMP_BACKTRACE_ATT_NAME "backtrace"
#define DECOMP_DIM_DIM "dims"
#define DECOMP_TASK_DIM_NAME "task"
#define DECOMP_MAPELEM_DIM_NAME "map_element"
#define DECOMP_NDIMS "ndims"
#define DECOMP_GLOBAL_SIZE_VAR_NAME "global_size"
#define DECOMP_MAPLEN_VAR_NAME "maplen"
#define DECOMP_MAP_VAR_NAME "map"
#define DECOMP_C_ORDER_STR "C"
#define DECOMP_FORTRAN_ORDER_STR "Fortran"

/* ---- files ----------------------------------------------------------------------------- */
int PIOc_createfile(int iosysid, int *ncidp, int *iotype, const char *fname, int mode);
int PIOc_create(int iosysid, const char *path, int cmode, int *ncidp);
int PIOc_openfile(int iosysid, int *ncidp, int *iotype, const char *fname, int mode);
int PIOc_openfile2(int iosysid, int *ncidp, int *iotype, const char *fname, int mode);
int PIOc_open(int iosysid, const char *path, int mode, int *ncidp);
int PIOc_closefile(int ncid);
int PIOc_sync(int ncid);
int PIOc_enddef(int ncid);
int PIOc_redef(int ncid);
int PIOc_File_is_Open(int ncid);

/* ---- definitions ----------------------------------------------------------------------- */
int PIOc_def_dim(int ncid, const char *name, PIO_Offset len, int *idp);
int PIOc_def_var(int ncid, const char *name, nc_type xtype, int ndims, const int *dimidsp,
                 int *varidp);
int PIOc_def_var_fill(int ncid, int varid, int no_fill, const void *fill_value);
int PIOc_inq_var_fill(int ncid, int varid, int *no_fill, void *fill_valuep);
int PIOc_set_fill(int ncid, int fillmode, int *old_modep);
int PIOc_def_var_deflate(int ncid, int varid, int shuffle, int deflate, int deflate_level);
int PIOc_def_var_chunking(int ncid, int varid, int storage, const PIO_Offset *chunksizesp);
/* nsd: significant bits (BITROUND) or digits (GRANULARBR); float and double variables. */
int PIOc_def_var_quantize(int ncid, int varid, int quantize_mode, int nsd);

/* ---- inquiry --------------------------------------------------------------------------- */
int PIOc_inq(int ncid, int *ndimsp, int *nvarsp, int *ngattsp, int *unlimdimidp);
int PIOc_inq_ndims(int ncid, int *ndimsp);
int PIOc_inq_nvars(int ncid, int *nvarsp);
int PIOc_inq_natts(int ncid, int *ngattsp);
int PIOc_inq_unlimdim(int ncid, int *unlimdimidp);
/* esmio's files have at most one unlimited dimension. */
int PIOc_inq_unlimdims(int ncid, int *nunlimdimsp, int *unlimdimidsp);
int PIOc_inq_format(int ncid, int *formatp);
int PIOc_inq_type(int ncid, nc_type xtype, char *name, PIO_Offset *sizep);
int PIOc_inq_dim(int ncid, int dimid, char *name, PIO_Offset *lenp);
int PIOc_inq_dimid(int ncid, const char *name, int *idp);
int PIOc_inq_dimname(int ncid, int dimid, char *name);
int PIOc_inq_dimlen(int ncid, int dimid, PIO_Offset *lenp);
int PIOc_inq_varid(int ncid, const char *name, int *varidp);
int PIOc_inq_var(int ncid, int varid, char *name, nc_type *xtypep, int *ndimsp, int *dimidsp,
                 int *nattsp);
int PIOc_inq_varname(int ncid, int varid, char *name);
int PIOc_inq_vartype(int ncid, int varid, nc_type *xtypep);
int PIOc_inq_varndims(int ncid, int varid, int *ndimsp);
int PIOc_inq_vardimid(int ncid, int varid, int *dimidsp);
int PIOc_inq_varnatts(int ncid, int varid, int *nattsp);
int PIOc_inq_att(int ncid, int varid, const char *name, nc_type *xtypep, PIO_Offset *lenp);
int PIOc_inq_attlen(int ncid, int varid, const char *name, PIO_Offset *lenp);
int PIOc_inq_atttype(int ncid, int varid, const char *name, nc_type *xtypep);
int PIOc_inq_attname(int ncid, int varid, int attnum, char *name);
int PIOc_inq_attid(int ncid, int varid, const char *name, int *idp);

/* ---- attributes: op holds len values of the C type, written as xtype ------------------- */
int PIOc_put_att(int ncid, int varid, const char *name, nc_type xtype, PIO_Offset len,
                 const void *op);
int PIOc_put_att_text(int ncid, int varid, const char *name, PIO_Offset len, const char *op);
int PIOc_put_att_schar(int ncid, int varid, const char *name, nc_type xtype, PIO_Offset len,
                       const signed char *op);
int PIOc_put_att_short(int ncid, int varid, const char *name, nc_type xtype, PIO_Offset len,
                       const short *op);
int PIOc_put_att_int(int ncid, int varid, const char *name, nc_type xtype, PIO_Offset len,
                     const int *op);
int PIOc_put_att_long(int ncid, int varid, const char *name, nc_type xtype, PIO_Offset len,
                      const long *op);
int PIOc_put_att_longlong(int ncid, int varid, const char *name, nc_type xtype, PIO_Offset len,
                          const long long *op);
int PIOc_put_att_float(int ncid, int varid, const char *name, nc_type xtype, PIO_Offset len,
                       const float *op);
int PIOc_put_att_double(int ncid, int varid, const char *name, nc_type xtype, PIO_Offset len,
                        const double *op);
int PIOc_get_att(int ncid, int varid, const char *name, void *ip);
int PIOc_get_att_text(int ncid, int varid, const char *name, char *ip);
int PIOc_get_att_schar(int ncid, int varid, const char *name, signed char *ip);
int PIOc_get_att_short(int ncid, int varid, const char *name, short *ip);
int PIOc_get_att_int(int ncid, int varid, const char *name, int *ip);
int PIOc_get_att_long(int ncid, int varid, const char *name, long *ip);
int PIOc_get_att_longlong(int ncid, int varid, const char *name, long long *ip);
int PIOc_get_att_float(int ncid, int varid, const char *name, float *ip);
int PIOc_get_att_double(int ncid, int varid, const char *name, double *ip);

/* ---- decomposed data ------------------------------------------------------------------- */
/* The record (frame) that the next write_darray / read_darray of (ncid, varid) uses. */
int PIOc_setframe(int ncid, int varid, int frame);
int PIOc_advanceframe(int ncid, int varid);
/* array: arraylen values of the decomposition's type. fillvalue: NULL, or one value of the
 * variable's type, as PIO compares it (docs/pio.md: it must be the variable's fill value). */
int PIOc_write_darray(int ncid, int varid, int ioid, PIO_Offset arraylen, void *array,
                      void *fillvalue);
/* nvars arrays of arraylen values one after the other; frame: one record per variable (NULL:
 * the variables' frames); fillvalue: NULL, or (whatever its declared type) nvars values of the
 * decomposition's type one after the other, as PIO reads it. */
int PIOc_write_darray_multi(int ncid, const int *varids, int ioid, int nvars, PIO_Offset arraylen,
                            void *array, const int *frame, void **fillvalue, bool flushtodisk);
/* The holes of the decomposition read as 0. */
int PIOc_read_darray(int ncid, int varid, int ioid, PIO_Offset arraylen, void *array);

/* A whole local array of decompid at record recnum (which becomes the variable's frame); the
 * C type must be the variable's type (PIO_EBADTYPE otherwise). */
int PIOc_put_vard(int ncid, int varid, int decompid, const PIO_Offset recnum, const void *op);
int PIOc_get_vard(int ncid, int varid, int decompid, const PIO_Offset recnum, void *buf);
int PIOc_put_vard_text(int ncid, int varid, int decompid, const PIO_Offset recnum, const char *op);
int PIOc_get_vard_text(int ncid, int varid, int decompid, const PIO_Offset recnum, char *buf);
int PIOc_put_vard_schar(int ncid, int varid, int decompid, const PIO_Offset recnum,
                        const signed char *op);
int PIOc_get_vard_schar(int ncid, int varid, int decompid, const PIO_Offset recnum,
                        signed char *buf);
int PIOc_put_vard_short(int ncid, int varid, int decompid, const PIO_Offset recnum,
                        const short *op);
int PIOc_get_vard_short(int ncid, int varid, int decompid, const PIO_Offset recnum, short *buf);
int PIOc_put_vard_int(int ncid, int varid, int decompid, const PIO_Offset recnum, const int *op);
int PIOc_get_vard_int(int ncid, int varid, int decompid, const PIO_Offset recnum, int *buf);
int PIOc_put_vard_float(int ncid, int varid, int decompid, const PIO_Offset recnum,
                        const float *op);
int PIOc_get_vard_float(int ncid, int varid, int decompid, const PIO_Offset recnum, float *buf);
int PIOc_put_vard_double(int ncid, int varid, int decompid, const PIO_Offset recnum,
                         const double *op);
int PIOc_get_vard_double(int ncid, int varid, int decompid, const PIO_Offset recnum, double *buf);
int PIOc_put_vard_longlong(int ncid, int varid, int decompid, const PIO_Offset recnum,
                           const long long *op);
int PIOc_get_vard_longlong(int ncid, int varid, int decompid, const PIO_Offset recnum,
                           long long *buf);

/* ---- undecomposed data: every task passes (and receives) the same values --------------- */
int PIOc_put_vara(int ncid, int varid, const PIO_Offset *start, const PIO_Offset *count,
                  const void *buf);
int PIOc_put_vara_text(int ncid, int varid, const PIO_Offset *start, const PIO_Offset *count,
                       const char *op);
int PIOc_put_vara_schar(int ncid, int varid, const PIO_Offset *start, const PIO_Offset *count,
                        const signed char *op);
int PIOc_put_vara_short(int ncid, int varid, const PIO_Offset *start, const PIO_Offset *count,
                        const short *op);
int PIOc_put_vara_int(int ncid, int varid, const PIO_Offset *start, const PIO_Offset *count,
                      const int *op);
int PIOc_put_vara_long(int ncid, int varid, const PIO_Offset *start, const PIO_Offset *count,
                       const long *op);
int PIOc_put_vara_longlong(int ncid, int varid, const PIO_Offset *start, const PIO_Offset *count,
                           const long long *op);
int PIOc_put_vara_float(int ncid, int varid, const PIO_Offset *start, const PIO_Offset *count,
                        const float *op);
int PIOc_put_vara_double(int ncid, int varid, const PIO_Offset *start, const PIO_Offset *count,
                         const double *op);
int PIOc_get_vara(int ncid, int varid, const PIO_Offset *start, const PIO_Offset *count, void *buf);
int PIOc_get_vara_text(int ncid, int varid, const PIO_Offset *start, const PIO_Offset *count,
                       char *buf);
int PIOc_get_vara_schar(int ncid, int varid, const PIO_Offset *start, const PIO_Offset *count,
                        signed char *buf);
int PIOc_get_vara_short(int ncid, int varid, const PIO_Offset *start, const PIO_Offset *count,
                        short *buf);
int PIOc_get_vara_int(int ncid, int varid, const PIO_Offset *start, const PIO_Offset *count,
                      int *buf);
int PIOc_get_vara_long(int ncid, int varid, const PIO_Offset *start, const PIO_Offset *count,
                       long *buf);
int PIOc_get_vara_longlong(int ncid, int varid, const PIO_Offset *start, const PIO_Offset *count,
                           long long *buf);
int PIOc_get_vara_float(int ncid, int varid, const PIO_Offset *start, const PIO_Offset *count,
                        float *buf);
int PIOc_get_vara_double(int ncid, int varid, const PIO_Offset *start, const PIO_Offset *count,
                         double *buf);
int PIOc_put_var(int ncid, int varid, const void *buf);
int PIOc_put_var_text(int ncid, int varid, const char *op);
int PIOc_put_var_schar(int ncid, int varid, const signed char *op);
int PIOc_put_var_short(int ncid, int varid, const short *op);
int PIOc_put_var_int(int ncid, int varid, const int *op);
int PIOc_put_var_long(int ncid, int varid, const long *op);
int PIOc_put_var_longlong(int ncid, int varid, const long long *op);
int PIOc_put_var_float(int ncid, int varid, const float *op);
int PIOc_put_var_double(int ncid, int varid, const double *op);
int PIOc_get_var(int ncid, int varid, void *buf);
int PIOc_get_var_text(int ncid, int varid, char *buf);
int PIOc_get_var_schar(int ncid, int varid, signed char *buf);
int PIOc_get_var_short(int ncid, int varid, short *buf);
int PIOc_get_var_int(int ncid, int varid, int *buf);
int PIOc_get_var_long(int ncid, int varid, long *buf);
int PIOc_get_var_longlong(int ncid, int varid, long long *buf);
int PIOc_get_var_float(int ncid, int varid, float *buf);
int PIOc_get_var_double(int ncid, int varid, double *buf);

/* One value at index (NULL for a scalar variable). */
int PIOc_put_var1(int ncid, int varid, const PIO_Offset *index, const void *op);
int PIOc_get_var1(int ncid, int varid, const PIO_Offset *index, void *buf);
int PIOc_put_var1_text(int ncid, int varid, const PIO_Offset *index, const char *op);
int PIOc_get_var1_text(int ncid, int varid, const PIO_Offset *index, char *buf);
int PIOc_put_var1_schar(int ncid, int varid, const PIO_Offset *index, const signed char *op);
int PIOc_get_var1_schar(int ncid, int varid, const PIO_Offset *index, signed char *buf);
int PIOc_put_var1_short(int ncid, int varid, const PIO_Offset *index, const short *op);
int PIOc_get_var1_short(int ncid, int varid, const PIO_Offset *index, short *buf);
int PIOc_put_var1_int(int ncid, int varid, const PIO_Offset *index, const int *op);
int PIOc_get_var1_int(int ncid, int varid, const PIO_Offset *index, int *buf);
int PIOc_put_var1_long(int ncid, int varid, const PIO_Offset *index, const long *op);
int PIOc_get_var1_long(int ncid, int varid, const PIO_Offset *index, long *buf);
int PIOc_put_var1_longlong(int ncid, int varid, const PIO_Offset *index, const long long *op);
int PIOc_get_var1_longlong(int ncid, int varid, const PIO_Offset *index, long long *buf);
int PIOc_put_var1_float(int ncid, int varid, const PIO_Offset *index, const float *op);
int PIOc_get_var1_float(int ncid, int varid, const PIO_Offset *index, float *buf);
int PIOc_put_var1_double(int ncid, int varid, const PIO_Offset *index, const double *op);
int PIOc_get_var1_double(int ncid, int varid, const PIO_Offset *index, double *buf);
/* Every stride-th value from start (stride NULL: 1), count values along each dimension. */
int PIOc_put_vars(int ncid, int varid, const PIO_Offset *start, const PIO_Offset *count,
                  const PIO_Offset *stride, const void *op);
int PIOc_get_vars(int ncid, int varid, const PIO_Offset *start, const PIO_Offset *count,
                  const PIO_Offset *stride, void *buf);
int PIOc_put_vars_text(int ncid, int varid, const PIO_Offset *start, const PIO_Offset *count,
                       const PIO_Offset *stride, const char *op);
int PIOc_get_vars_text(int ncid, int varid, const PIO_Offset *start, const PIO_Offset *count,
                       const PIO_Offset *stride, char *buf);
int PIOc_put_vars_schar(int ncid, int varid, const PIO_Offset *start, const PIO_Offset *count,
                        const PIO_Offset *stride, const signed char *op);
int PIOc_get_vars_schar(int ncid, int varid, const PIO_Offset *start, const PIO_Offset *count,
                        const PIO_Offset *stride, signed char *buf);
int PIOc_put_vars_short(int ncid, int varid, const PIO_Offset *start, const PIO_Offset *count,
                        const PIO_Offset *stride, const short *op);
int PIOc_get_vars_short(int ncid, int varid, const PIO_Offset *start, const PIO_Offset *count,
                        const PIO_Offset *stride, short *buf);
int PIOc_put_vars_int(int ncid, int varid, const PIO_Offset *start, const PIO_Offset *count,
                      const PIO_Offset *stride, const int *op);
int PIOc_get_vars_int(int ncid, int varid, const PIO_Offset *start, const PIO_Offset *count,
                      const PIO_Offset *stride, int *buf);
int PIOc_put_vars_long(int ncid, int varid, const PIO_Offset *start, const PIO_Offset *count,
                       const PIO_Offset *stride, const long *op);
int PIOc_get_vars_long(int ncid, int varid, const PIO_Offset *start, const PIO_Offset *count,
                       const PIO_Offset *stride, long *buf);
int PIOc_put_vars_longlong(int ncid, int varid, const PIO_Offset *start, const PIO_Offset *count,
                           const PIO_Offset *stride, const long long *op);
int PIOc_get_vars_longlong(int ncid, int varid, const PIO_Offset *start, const PIO_Offset *count,
                           const PIO_Offset *stride, long long *buf);
int PIOc_put_vars_float(int ncid, int varid, const PIO_Offset *start, const PIO_Offset *count,
                        const PIO_Offset *stride, const float *op);
int PIOc_get_vars_float(int ncid, int varid, const PIO_Offset *start, const PIO_Offset *count,
                        const PIO_Offset *stride, float *buf);
int PIOc_put_vars_double(int ncid, int varid, const PIO_Offset *start, const PIO_Offset *count,
                         const PIO_Offset *stride, const double *op);
int PIOc_get_vars_double(int ncid, int varid, const PIO_Offset *start, const PIO_Offset *count,
                         const PIO_Offset *stride, double *buf);

/* ---- the unsigned types (CDF-5 and netCDF-4 files) --------------------------------------- */
int PIOc_put_att_uchar(int ncid, int varid, const char *name, nc_type xtype, PIO_Offset len,
                       const unsigned char *op);
int PIOc_get_att_uchar(int ncid, int varid, const char *name, unsigned char *ip);
int PIOc_put_vard_uchar(int ncid, int varid, int decompid, const PIO_Offset recnum,
                        const unsigned char *op);
int PIOc_get_vard_uchar(int ncid, int varid, int decompid, const PIO_Offset recnum,
                        unsigned char *buf);
int PIOc_put_vara_uchar(int ncid, int varid, const PIO_Offset *start, const PIO_Offset *count,
                        const unsigned char *op);
int PIOc_get_vara_uchar(int ncid, int varid, const PIO_Offset *start, const PIO_Offset *count,
                        unsigned char *buf);
int PIOc_put_var_uchar(int ncid, int varid, const unsigned char *op);
int PIOc_get_var_uchar(int ncid, int varid, unsigned char *buf);
int PIOc_put_var1_uchar(int ncid, int varid, const PIO_Offset *index, const unsigned char *op);
int PIOc_get_var1_uchar(int ncid, int varid, const PIO_Offset *index, unsigned char *buf);
int PIOc_put_vars_uchar(int ncid, int varid, const PIO_Offset *start, const PIO_Offset *count,
                        const PIO_Offset *stride, const unsigned char *op);
int PIOc_get_vars_uchar(int ncid, int varid, const PIO_Offset *start, const PIO_Offset *count,
                        const PIO_Offset *stride, unsigned char *buf);
int PIOc_put_att_ushort(int ncid, int varid, const char *name, nc_type xtype, PIO_Offset len,
                        const unsigned short *op);
int PIOc_get_att_ushort(int ncid, int varid, const char *name, unsigned short *ip);
int PIOc_put_vard_ushort(int ncid, int varid, int decompid, const PIO_Offset recnum,
                         const unsigned short *op);
int PIOc_get_vard_ushort(int ncid, int varid, int decompid, const PIO_Offset recnum,
                         unsigned short *buf);
int PIOc_put_vara_ushort(int ncid, int varid, const PIO_Offset *start, const PIO_Offset *count,
                         const unsigned short *op);
int PIOc_get_vara_ushort(int ncid, int varid, const PIO_Offset *start, const PIO_Offset *count,
                         unsigned short *buf);
int PIOc_put_var_ushort(int ncid, int varid, const unsigned short *op);
int PIOc_get_var_ushort(int ncid, int varid, unsigned short *buf);
int PIOc_put_var1_ushort(int ncid, int varid, const PIO_Offset *index, const unsigned short *op);
int PIOc_get_var1_ushort(int ncid, int varid, const PIO_Offset *index, unsigned short *buf);
int PIOc_put_vars_ushort(int ncid, int varid, const PIO_Offset *start, const PIO_Offset *count,
                         const PIO_Offset *stride, const unsigned short *op);
int PIOc_get_vars_ushort(int ncid, int varid, const PIO_Offset *start, const PIO_Offset *count,
                         const PIO_Offset *stride, unsigned short *buf);
int PIOc_put_att_uint(int ncid, int varid, const char *name, nc_type xtype, PIO_Offset len,
                      const unsigned int *op);
int PIOc_get_att_uint(int ncid, int varid, const char *name, unsigned int *ip);
int PIOc_put_vard_uint(int ncid, int varid, int decompid, const PIO_Offset recnum,
                       const unsigned int *op);
int PIOc_get_vard_uint(int ncid, int varid, int decompid, const PIO_Offset recnum,
                       unsigned int *buf);
int PIOc_put_vara_uint(int ncid, int varid, const PIO_Offset *start, const PIO_Offset *count,
                       const unsigned int *op);
int PIOc_get_vara_uint(int ncid, int varid, const PIO_Offset *start, const PIO_Offset *count,
                       unsigned int *buf);
int PIOc_put_var_uint(int ncid, int varid, const unsigned int *op);
int PIOc_get_var_uint(int ncid, int varid, unsigned int *buf);
int PIOc_put_var1_uint(int ncid, int varid, const PIO_Offset *index, const unsigned int *op);
int PIOc_get_var1_uint(int ncid, int varid, const PIO_Offset *index, unsigned int *buf);
int PIOc_put_vars_uint(int ncid, int varid, const PIO_Offset *start, const PIO_Offset *count,
                       const PIO_Offset *stride, const unsigned int *op);
int PIOc_get_vars_uint(int ncid, int varid, const PIO_Offset *start, const PIO_Offset *count,
                       const PIO_Offset *stride, unsigned int *buf);
int PIOc_put_att_ulonglong(int ncid, int varid, const char *name, nc_type xtype, PIO_Offset len,
                           const unsigned long long *op);
int PIOc_get_att_ulonglong(int ncid, int varid, const char *name, unsigned long long *ip);
int PIOc_put_vard_ulonglong(int ncid, int varid, int decompid, const PIO_Offset recnum,
                            const unsigned long long *op);
int PIOc_get_vard_ulonglong(int ncid, int varid, int decompid, const PIO_Offset recnum,
                            unsigned long long *buf);
int PIOc_put_vara_ulonglong(int ncid, int varid, const PIO_Offset *start, const PIO_Offset *count,
                            const unsigned long long *op);
int PIOc_get_vara_ulonglong(int ncid, int varid, const PIO_Offset *start, const PIO_Offset *count,
                            unsigned long long *buf);
int PIOc_put_var_ulonglong(int ncid, int varid, const unsigned long long *op);
int PIOc_get_var_ulonglong(int ncid, int varid, unsigned long long *buf);
int PIOc_put_var1_ulonglong(int ncid, int varid, const PIO_Offset *index,
                            const unsigned long long *op);
int PIOc_get_var1_ulonglong(int ncid, int varid, const PIO_Offset *index, unsigned long long *buf);
int PIOc_put_vars_ulonglong(int ncid, int varid, const PIO_Offset *start, const PIO_Offset *count,
                            const PIO_Offset *stride, const unsigned long long *op);
int PIOc_get_vars_ulonglong(int ncid, int varid, const PIO_Offset *start, const PIO_Offset *count,
                            const PIO_Offset *stride, unsigned long long *buf);

#ifdef __cplusplus
}
#endif
#endif /* ESMIO_PIO_H */
