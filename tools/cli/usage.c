/* The help text of the tool and of each command. */
#include "cli.h"

#include <string.h>

static const char general[] =
    "Usage: clmax <command> [options]\n"
    "\n"
    "Exact ONNX ArgMax, ArgMin and Hardmax on .npy files, on OpenCL or the CPU.\n"
    "\n"
    "Commands:\n"
    "  argmax IN.npy OUT.npy [options]   the index of the maximum along an axis (int64);\n"
    "                                    --values=VALUES.npy writes the maxima too\n"
    "  argmin IN.npy OUT.npy [options]   the index of the minimum along an axis (int64);\n"
    "                                    --values=VALUES.npy writes the minima too\n"
    "  hardmax IN.npy OUT.npy [options]  a one-hot of the first maximum along an axis\n"
    "  devices                           list OpenCL platforms and devices, and say which one\n"
    "                                    auto would pick\n"
    "  prebuild [--types=LIST] [--ops=LIST] [--device=SEL]\n"
    "                                    build a device's programs into the program cache\n"
    "\n"
    "  clmax --version | --help | <command> --help\n"
    "\n"
    "Environment: CLMAX_BACKEND=auto|opencl|cpu applies to --backend=auto, CLMAX_DEVICE=SEL\n"
    "when --device is not given.\n"
    "\n"
    "Exit status: 0 success; 1 the input or the operation was refused (the message names the\n"
    "file and the problem); 2 bad usage: an unknown option, a missing argument, a bad option\n"
    "value, or an attribute the chosen opset does not have.\n";

static const char common[] =
    "  --backend=auto|opencl|cpu\n"
    "                           where to run (default auto: OpenCL when a device works, else\n"
    "                           the CPU; CLMAX_BACKEND=opencl|cpu overrides auto)\n"
    "  --device=SEL             the OpenCL device: its index in `clmax devices`, or a\n"
    "                           case-insensitive substring of \"<platform> <device>\" (default:\n"
    "                           CLMAX_DEVICE, else the first GPU, else the first device).\n"
    "                           --device means --backend=opencl unless --backend is given.\n"
    "  --bf16                   read a 2-byte input ('<u2' or '|V2') as bfloat16 bits (opset 13)\n"
    "  -v                       print the backend, device, warnings (a cache folder not used)\n"
    "                           and the operator's time on stderr\n"
    "  -h, --help               print this help\n"
    "Valued options take their value after '=' or as the next argument (--axis 1).\n"
    "\n"
    "IN.npy: .npy version 1.0, 2.0 or 3.0, C or Fortran order, either byte order.\n"
    "OUT.npy (and VALUES.npy) are written through temporary files beside them, so they are\n"
    "replaced only on success.\n"
    "Exit status: 0 success; 1 input or operation refused; 2 bad usage (see clmax --help).\n";

/* ArgMax and ArgMin: usage (with the command's name), description, types, options. */
static const char arg_usage[] =
    "Usage: clmax %s IN.npy OUT.npy [--axis=N] [--keepdims=0|1] [--select-last-index=0|1]\n"
    "                    [--opset=N] [--values=VALUES.npy] [--backend=auto|opencl|cpu]\n"
    "                    [--device=SEL] [--bf16] [-v]\n"
    "\n";

static const char argmax[] =
    "ONNX ArgMax: OUT.npy gets the index of the maximum of IN.npy along an axis, as int64 "
    "('<i8').\n"
    "NaN is the greatest value; ties go to the first index (the last with "
    "--select-last-index=1).\n";

static const char argmin[] =
    "ONNX ArgMin: OUT.npy gets the index of the minimum of IN.npy along an axis, as int64 "
    "('<i8').\n"
    "NaN still wins, as in the ONNX reference (numpy's argmin): the first NaN of a row, or the\n"
    "last with --select-last-index=1. Otherwise the smallest value wins (-0 == +0); ties go to\n"
    "the first index (the last with --select-last-index=1).\n";

static const char arg_options[] =
    "Input types: f2 f4 f8 i1 i2 i4 i8 u1 u2 u4 u8, and bfloat16 with --bf16 (opset 13).\n"
    "\n"
    "Options:\n"
    "  --axis=N                 the axis to reduce; negative counts from the end (default 0)\n"
    "  --keepdims=0|1           1 keeps the reduced axis with length 1, 0 drops it (default 1)\n"
    "  --select-last-index=0|1  ties go to the last index (opset 12 and 13; default 0)\n"
    "  --opset=N                the ONNX opset: 1, 11, 12 or 13 (default 13); the defaults\n"
    "                           above are those of the opset, and an option the opset does\n"
    "                           not have is refused\n";

static const char argmax_values[] =
    "  --values=VALUES.npy      also write the elements the indices point at: the input's type\n"
    "                           (bfloat16 bits as '<u2' with --bf16), OUT.npy's shape. Both files\n"
    "                           are replaced together or neither is; VALUES.npy must be another\n"
    "                           file than IN.npy and OUT.npy\n";

static const char argmin_values[] =
    "  --values=VALUES.npy      also write the minima: the elements the indices point at, in the\n"
    "                           input's type (bfloat16 bits as '<u2' with --bf16), OUT.npy's\n"
    "                           shape. Both files are replaced together or neither is;\n"
    "                           VALUES.npy must be another file than IN.npy and OUT.npy\n";

static const char hardmax[] =
    "Usage: clmax hardmax IN.npy OUT.npy [--axis=N] [--opset=N] [--backend=auto|opencl|cpu]\n"
    "                     [--device=SEL] [--bf16] [-v]\n"
    "\n"
    "ONNX Hardmax: OUT.npy has the shape and type of IN.npy, with 1 at the first maximum along\n"
    "an axis and 0 elsewhere. NaN is the greatest value. With --bf16 the output holds bfloat16\n"
    "bits as '<u2'. Input types: f2 f4 f8, and bfloat16 with --bf16 (opset 13).\n"
    "\n"
    "Options:\n"
    "  --axis=N                 opset 13: the axis (default -1); opsets 1 and 11: the input is\n"
    "                           seen as 2-D, [product of dims before axis, product of the rest]\n"
    "                           (default 1). Negative counts from the end.\n"
    "  --opset=N                the ONNX opset: 1, 11 or 13 (default 13)\n";

static const char devices[] =
    "Usage: clmax devices [--backend=auto|opencl|cpu] [--device=SEL]\n"
    "\n"
    "List the OpenCL platforms and devices with the index that --device and CLMAX_DEVICE take\n"
    "(platforms in order, their devices in order, one running index), then say which device\n"
    "a context would pick: auto by default, or the one --backend and --device choose.\n"
    "\n"
    "Options:\n"
    "  --backend=auto|opencl|cpu  the backend to ask for (default auto)\n"
    "  --device=SEL             a device selector to try, as for argmax (it means\n"
    "                           --backend=opencl unless --backend is given)\n"
    "  -h, --help               print this help\n"
    "Exit status: 0 success; 1 the chosen backend or device could not start; 2 bad usage.\n";

static const char prebuild[] =
    "Usage: clmax prebuild [--types=LIST] [--ops=LIST] [--device=SEL] [-v]\n"
    "\n"
    "Build the OpenCL programs that the operators use, for one device, and keep them in the\n"
    "program cache (CLMAX_CACHE_DIR, else $XDG_CACHE_HOME/clmax or ~/.cache/clmax), so that later\n"
    "processes find them built: a warm-up for container images and CI. Also measures the cost\n"
    "model's profile that --backend=auto uses, and keeps it beside them. Prints how many programs\n"
    "are ready, how many were built now and how many were read back from the cache (a second run\n"
    "builds none, but where the driver keeps its own builds, as PoCL does: there the cache keeps\n"
    "a program only once its builds have cost 2 s, and until then a second run's builds are the\n"
    "driver's lookups).\n"
    "\n"
    "Options:\n"
    "  --types=LIST             comma-separated: float16 float32 float64 bfloat16 int8 int16\n"
    "                           int32 int64 uint8 uint16 uint32 uint64 (default: all)\n"
    "  --ops=LIST               comma-separated: argmax argmin hardmax (default: all; Hardmax\n"
    "                           takes the float types only)\n"
    "  --device=SEL             the OpenCL device, as for argmax (default: CLMAX_DEVICE, else\n"
    "                           the first GPU, else the first device)\n"
    "  -v                       also list the types\n"
    "  -h, --help               print this help\n"
    "Exit status: 0 success; 1 no OpenCL device, or a build failed; 2 bad usage.\n";

void cli_usage(FILE *f, const char *command)
{
    if (command == NULL) {
        fputs(general, f);
    } else if (strcmp(command, "argmax") == 0 || strcmp(command, "argmin") == 0) {
        int max = strcmp(command, "argmax") == 0;
        fprintf(f, arg_usage, command);
        fputs(max ? argmax : argmin, f);
        fputs(arg_options, f);
        fputs(max ? argmax_values : argmin_values, f);
        fputs(common, f);
    } else if (strcmp(command, "hardmax") == 0) {
        fputs(hardmax, f);
        fputs(common, f);
    } else if (strcmp(command, "devices") == 0) {
        fputs(devices, f);
    } else if (strcmp(command, "prebuild") == 0) {
        fputs(prebuild, f);
    }
}
