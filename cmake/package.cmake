# cpack -G DEB (run in a build directory): a Debian package whose Depends
# come from the binary's shared libraries (dpkg-shlibdeps): libc6, libjansson4,
# libhwloc15, libpfm4, libpcre2-8-0 (tests/check-deb.sh checks each).
set(CPACK_PACKAGE_NAME mthpscope)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
# The .invalid domain (RFC 2606) says plainly that no real address is set:
# pass -DMTHPSCOPE_DEB_MAINTAINER="Name <address>" for a package to publish.
set(MTHPSCOPE_DEB_MAINTAINER "mthpscope maintainers <maintainers@mthpscope.invalid>"
  CACHE STRING "Maintainer field of the .deb")
set(CPACK_PACKAGE_CONTACT "${MTHPSCOPE_DEB_MAINTAINER}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
  "measure what each mTHP folio order buys in address translation")
set(CPACK_PACKAGE_DESCRIPTION
  "mthpscope measures what each multi-size THP (mTHP) folio order buys in
address translation on a given CPU and kernel, and recommends the smallest
order worth creating. Micro-benchmarks back a buffer with folios of one order
at a time, perf_event counters read dTLB misses and page walks where a PMU
exists, pagemap and kpageflags prove which folio orders the kernel gave, and
every number carries its source.")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS gnuplot-nox)
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "linux-perf")
# Debian policy: binaries stripped (the debug info stays in the build tree).
set(CPACK_STRIP_FILES ON)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_GENERATOR DEB)

# Debian policy: a native package's /usr/share/doc/<pkg> holds copyright and
# changelog.gz. The changelog's date honours SOURCE_DATE_EPOCH.
string(TIMESTAMP _deb_date "%a, %d %b %Y %H:%M:%S +0000" UTC)
file(WRITE ${CMAKE_BINARY_DIR}/changelog
  "mthpscope (${PROJECT_VERSION}) unstable; urgency=medium\n\n"
  "  * Built from the mthpscope sources; see the project's git history.\n\n"
  " -- ${MTHPSCOPE_DEB_MAINTAINER}  ${_deb_date}\n")
add_custom_command(OUTPUT ${CMAKE_BINARY_DIR}/changelog.gz
  COMMAND gzip -9nf -k ${CMAKE_BINARY_DIR}/changelog
  DEPENDS ${CMAKE_BINARY_DIR}/changelog VERBATIM)
add_custom_target(mthpscope_changelog ALL DEPENDS ${CMAKE_BINARY_DIR}/changelog.gz)
install(FILES ${CMAKE_BINARY_DIR}/changelog.gz ${CMAKE_SOURCE_DIR}/doc/copyright
  DESTINATION ${CMAKE_INSTALL_DOCDIR})
include(CPack)
