/* The table of OpenCL entry points (see cl_api.h), initialised to the real functions. */
#include "cl_api.h"

clmax_cl_api_table clmax_cl_api = {
#define CLMAX_CL_API_INIT(name) .name = cl##name,
    CLMAX_CL_FUNCTIONS(CLMAX_CL_API_INIT)
#undef CLMAX_CL_API_INIT
};
