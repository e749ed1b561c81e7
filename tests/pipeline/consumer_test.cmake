# cmake -P script: installs the build BUILD_DIR into a scratch prefix under WORK_DIR, moves the
# prefix (an install must be relocatable), then builds and runs consumer/ against it twice:
# through find_package(clmax) (shared and static targets) and through pkg-config.
#   BUILD_DIR WORK_DIR SOURCE_DIR LIBDIR INCLUDEDIR C_COMPILER VERSION  required
#   CONFIG      the build's configuration (multi-config generators)
#   PKG_CONFIG  the pkg-config program; empty: that part is skipped with a message
foreach(var BUILD_DIR WORK_DIR SOURCE_DIR LIBDIR INCLUDEDIR C_COMPILER VERSION)
    if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
        message(FATAL_ERROR "consumer_test.cmake: -D${var}=... is required")
    endif()
endforeach()
if(IS_ABSOLUTE "${LIBDIR}" OR IS_ABSOLUTE "${INCLUDEDIR}")
    message(FATAL_ERROR "CMAKE_INSTALL_LIBDIR/INCLUDEDIR are absolute (${LIBDIR}, ${INCLUDEDIR}): "
                        "such an install cannot go to another prefix")
endif()

function(run)
    string(REPLACE ";" " " shown "${ARGN}")
    message(STATUS "$ ${shown}")
    execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
        message(FATAL_ERROR "failed (${rc}): ${shown}")
    endif()
endfunction()

file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})
set(staged ${WORK_DIR}/staged)
set(prefix ${WORK_DIR}/prefix)

set(config_args)
if(CONFIG)
    set(config_args --config ${CONFIG})
endif()
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${staged} ${config_args})
file(RENAME ${staged} ${prefix})
foreach(f ${INCLUDEDIR}/clmax.h ${INCLUDEDIR}/clmax_cl.h ${LIBDIR}/pkgconfig/clmax.pc
          ${LIBDIR}/cmake/clmax/clmaxConfig.cmake ${LIBDIR}/cmake/clmax/clmaxConfigVersion.cmake)
    if(NOT EXISTS ${prefix}/${f})
        message(FATAL_ERROR "not installed: ${f}")
    endif()
endforeach()

# find_package(clmax): the shared and the static target. The executables find the shared library
# through the build RPATH CMake gives them, as any CMake user's would.
set(cmake_build ${WORK_DIR}/cmake-build)
run(${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${cmake_build} -G "Unix Makefiles"
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER=${C_COMPILER} -DCMAKE_PREFIX_PATH=${prefix})
file(STRINGS ${cmake_build}/CMakeCache.txt found REGEX "^clmax_DIR:")
string(REGEX REPLACE "^clmax_DIR:[A-Z]+=" "" found "${found}")
file(REAL_PATH "${found}" found_real)
file(REAL_PATH "${prefix}/${LIBDIR}/cmake/clmax" want_real)
if(NOT found_real STREQUAL want_real)
    message(FATAL_ERROR "find_package(clmax) found ${found}, not the scratch install")
endif()
run(${CMAKE_COMMAND} --build ${cmake_build})
run(${cmake_build}/consumer)
run(${cmake_build}/consumer_static)

# pkg-config, the way the README shows it.
if(NOT PKG_CONFIG)
    message(STATUS "pkg-config not found: the pkg-config consumer is not built")
    return()
endif()
set(ENV{PKG_CONFIG_PATH} ${prefix}/${LIBDIR}/pkgconfig)
execute_process(COMMAND ${PKG_CONFIG} --modversion clmax OUTPUT_VARIABLE pc_version
                RESULT_VARIABLE rc OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT rc EQUAL 0 OR NOT pc_version STREQUAL VERSION)
    message(FATAL_ERROR "pkg-config --modversion clmax gave '${pc_version}' (${rc}), not ${VERSION}")
endif()
execute_process(COMMAND ${PKG_CONFIG} --cflags --libs clmax OUTPUT_VARIABLE flags
                RESULT_VARIABLE rc OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "pkg-config --cflags --libs clmax failed (${rc})")
endif()
message(STATUS "pkg-config --cflags --libs clmax: ${flags}")
separate_arguments(flags UNIX_COMMAND "${flags}")
# The -I and -L directories (relative to the .pc file's own place) must be those of the moved tree.
file(REAL_PATH "${prefix}/${INCLUDEDIR}" want_include)
file(REAL_PATH "${prefix}/${LIBDIR}" want_lib)
set(found_include FALSE)
set(found_lib FALSE)
foreach(flag ${flags})
    if(flag MATCHES "^-([IL])(.+)$")
        set(kind ${CMAKE_MATCH_1})
        file(REAL_PATH "${CMAKE_MATCH_2}" dir)
        if(kind STREQUAL "I" AND dir STREQUAL want_include)
            set(found_include TRUE)
        elseif(kind STREQUAL "L" AND dir STREQUAL want_lib)
            set(found_lib TRUE)
        endif()
    endif()
endforeach()
if(NOT found_include OR NOT found_lib)
    message(FATAL_ERROR "clmax.pc does not point into the moved prefix ${prefix}: ${flags}")
endif()
run(${C_COMPILER} ${SOURCE_DIR}/consumer.c -o ${WORK_DIR}/consumer-pc ${flags})
run(${CMAKE_COMMAND} -E env LD_LIBRARY_PATH=${prefix}/${LIBDIR} ${WORK_DIR}/consumer-pc)
