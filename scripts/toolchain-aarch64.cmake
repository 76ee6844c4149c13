# Cross-compile for arm64 on a Debian x86_64 host with multiarch arm64
# libraries (scripts/setup.sh --tests installs gcc-aarch64-linux-gnu,
# qemu-user and libpfm4-dev:arm64, libhwloc-dev:arm64, libjansson-dev:arm64).
#   cmake -S . -B build-arm64 -DCMAKE_TOOLCHAIN_FILE=scripts/toolchain-aarch64.cmake
# ctest then runs the test programs under qemu-user.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)

# Multiarch: arm64 libraries live in /usr/lib/aarch64-linux-gnu, the
# cross libc in /usr/aarch64-linux-gnu. Search there only for libraries and
# headers, on the host for programs.
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu /usr)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig)
# hwloc's own dependencies (libudev, ...) are resolved at link time
set(CMAKE_EXE_LINKER_FLAGS_INIT "-Wl,-rpath-link,/usr/lib/aarch64-linux-gnu")

set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64 -L /usr/aarch64-linux-gnu)
