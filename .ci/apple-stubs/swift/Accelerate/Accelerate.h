/* Stub for .ci/apple-typecheck: the Accelerate (vecLib) declarations GestureKit's
 * `#if canImport(Accelerate)` branches call, spelled as Apple's SDK headers spell them, so Swift
 * imports them with the same types as on macOS and iOS.
 *
 * Without ACCELERATE_NEW_LAPACK (what Package.swift builds with): the classic interfaces,
 * vecLib's cblas.h (`const int` sizes, bare enums) and clapack.h (`__CLPK_integer *`, `char *`
 * options, an `int` result); macOS 13.3 and iOS 16.4 deprecate them but keep them.
 * With -DACCELERATE_NEW_LAPACK: cblas_new.h and lapack.h (`__LAPACK_int`, `const char *`
 * options, nullability, `void` results); -DACCELERATE_LAPACK_ILP64 on top makes __LAPACK_int
 * `long`, as in lapack_types.h.
 *
 * Only what the code calls is declared: a new Accelerate call fails the check with "cannot find"
 * until its prototype is copied here from the SDK header. The availability attributes and the
 * __LAPACK_ALIAS symbol renames are left out: they do not change the Swift types. */
#ifndef GK_STUB_ACCELERATE_H
#define GK_STUB_ACCELERATE_H

/* cblas.h and cblas_new.h share these (both guard them with CBLAS_ENUM_DEFINED_H). */
#ifndef CBLAS_ENUM_DEFINED_H
#define CBLAS_ENUM_DEFINED_H
enum CBLAS_ORDER {CblasRowMajor=101, CblasColMajor=102 };
enum CBLAS_TRANSPOSE {CblasNoTrans=111, CblasTrans=112, CblasConjTrans=113, AtlasConj=114};
enum CBLAS_UPLO  {CblasUpper=121, CblasLower=122};
enum CBLAS_DIAG  {CblasNonUnit=131, CblasUnit=132};
enum CBLAS_SIDE  {CblasLeft=141, CblasRight=142};
#endif

#if defined(ACCELERATE_NEW_LAPACK)

/* lapack_types.h */
#if defined(ACCELERATE_LAPACK_ILP64)
typedef long __LAPACK_int;
#else
typedef int __LAPACK_int;
#endif

/* cblas_new.h */
float cblas_sdot(const __LAPACK_int N, const float * _Nullable X, const __LAPACK_int INCX,
                 const float * _Nullable Y, const __LAPACK_int INCY);

void cblas_saxpy(const __LAPACK_int N, const float ALPHA, const float * _Nullable X,
                 const __LAPACK_int INCX, float * _Nullable Y, const __LAPACK_int INCY);

void cblas_sgemv(const enum CBLAS_ORDER ORDER,
                 const enum CBLAS_TRANSPOSE TRANSA, const __LAPACK_int M, const __LAPACK_int N,
                 const float ALPHA, const float * _Nullable A, const __LAPACK_int LDA,
                 const float * _Nullable X, const __LAPACK_int INCX, const float BETA, float * _Nullable Y,
                 const __LAPACK_int INCY);

void cblas_sgemm(const enum CBLAS_ORDER ORDER,
                 const enum CBLAS_TRANSPOSE TRANSA,
                 const enum CBLAS_TRANSPOSE TRANSB, const __LAPACK_int M, const __LAPACK_int N,
                 const __LAPACK_int K, const float ALPHA, const float * _Nullable A, const __LAPACK_int LDA,
                 const float * _Nullable B, const __LAPACK_int LDB, const float BETA, float * _Nullable C,
                 const __LAPACK_int LDC);

void cblas_dgemm(const enum CBLAS_ORDER ORDER,
                 const enum CBLAS_TRANSPOSE TRANSA,
                 const enum CBLAS_TRANSPOSE TRANSB, const __LAPACK_int M, const __LAPACK_int N,
                 const __LAPACK_int K, const double ALPHA, const double * _Nullable A,
                 const __LAPACK_int LDA, const double * _Nullable B, const __LAPACK_int LDB,
                 const double BETA, double * _Nullable C, const __LAPACK_int LDC);

/* lapack.h: options `const char * _Nonnull`, scalars and workspaces `_Nonnull`, arrays that an
 * option may leave untouched `_Nullable`. */
void ssyevd_(const char * _Nonnull JOBZ, const char * _Nonnull UPLO, const __LAPACK_int * _Nonnull N,
        float * _Nullable A, const __LAPACK_int * _Nonnull LDA, float * _Nullable W,
        float * _Nonnull WORK, const __LAPACK_int * _Nonnull LWORK, __LAPACK_int * _Nullable IWORK,
        const __LAPACK_int * _Nonnull LIWORK, __LAPACK_int * _Nonnull INFO);

void dsyevd_(const char * _Nonnull JOBZ, const char * _Nonnull UPLO, const __LAPACK_int * _Nonnull N,
        double * _Nullable A, const __LAPACK_int * _Nonnull LDA, double * _Nullable W,
        double * _Nonnull WORK, const __LAPACK_int * _Nonnull LWORK, __LAPACK_int * _Nullable IWORK,
        const __LAPACK_int * _Nonnull LIWORK, __LAPACK_int * _Nonnull INFO);

void spotrf_(const char * _Nonnull UPLO, const __LAPACK_int * _Nonnull N, float * _Nullable A,
        const __LAPACK_int * _Nonnull LDA, __LAPACK_int * _Nonnull INFO);

#else /* the classic interfaces */

/* cblas.h */
float  cblas_sdot(const int __N, const float *__X, const int __incX,
                  const float *__Y, const int __incY);

void cblas_saxpy(const int __N, const float __alpha, const float *__X,
                 const int __incX, float *__Y, const int __incY);

void cblas_sgemv(const enum CBLAS_ORDER __Order,
                 const enum CBLAS_TRANSPOSE __TransA, const int __M, const int __N,
                 const float __alpha, const float *__A, const int __lda,
                 const float *__X, const int __incX, const float __beta, float *__Y,
                 const int __incY);

void cblas_sgemm(const enum CBLAS_ORDER __Order,
                 const enum CBLAS_TRANSPOSE __TransA,
                 const enum CBLAS_TRANSPOSE __TransB, const int __M, const int __N,
                 const int __K, const float __alpha, const float *__A, const int __lda,
                 const float *__B, const int __ldb, const float __beta, float *__C,
                 const int __ldc);

void cblas_dgemm(const enum CBLAS_ORDER __Order,
                 const enum CBLAS_TRANSPOSE __TransA,
                 const enum CBLAS_TRANSPOSE __TransB, const int __M, const int __N,
                 const int __K, const double __alpha, const double *__A,
                 const int __lda, const double *__B, const int __ldb,
                 const double __beta, double *__C, const int __ldc);

/* clapack.h (LP64: "In LP64 match sizes with the 32 bit ABI") */
typedef int             __CLPK_integer;
typedef float           __CLPK_real;
typedef double          __CLPK_doublereal;

int ssyevd_(char *__jobz, char *__uplo, __CLPK_integer *__n, __CLPK_real *__a,
        __CLPK_integer *__lda, __CLPK_real *__w, __CLPK_real *__work,
        __CLPK_integer *__lwork, __CLPK_integer *__iwork,
        __CLPK_integer *__liwork,
        __CLPK_integer *__info);

int dsyevd_(char *__jobz, char *__uplo, __CLPK_integer *__n,
        __CLPK_doublereal *__a, __CLPK_integer *__lda, __CLPK_doublereal *__w,
        __CLPK_doublereal *__work, __CLPK_integer *__lwork,
        __CLPK_integer *__iwork, __CLPK_integer *__liwork,
        __CLPK_integer *__info);

int spotrf_(char *__uplo, __CLPK_integer *__n, __CLPK_real *__a,
        __CLPK_integer *__lda,
        __CLPK_integer *__info);

#endif /* ACCELERATE_NEW_LAPACK */

#endif /* GK_STUB_ACCELERATE_H */
