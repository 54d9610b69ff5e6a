# KEXT_SANITIZE=address: ASan + UBSan (any UB report aborts). KEXT_SANITIZE=thread: TSan.
# Every target defined after this is compiled and linked with the flags. tests/sanitize/run builds and
# runs the tests this way.
set(KEXT_SANITIZE "" CACHE STRING "Sanitizer build: address (ASan+UBSan), thread (TSan) or empty")
set_property(CACHE KEXT_SANITIZE PROPERTY STRINGS "" address thread)
if(KEXT_SANITIZE STREQUAL "address")
  # Every UBSan check but null and alignment, which instrument every pointer access and double the
  # build's compile time: ASan reports a null dereference itself (as a SEGV, with its stack), x86 does
  # not fault on misalignment, and the fuzz build (tests/fuzz) keeps both checks on the decoders, where
  # input picks the pointers.
  set(KEXT_SANITIZE_FLAGS -fsanitize=address,undefined -fno-sanitize=null,alignment -fno-sanitize-recover=undefined
      -fno-omit-frame-pointer)
elseif(KEXT_SANITIZE STREQUAL "thread")
  set(KEXT_SANITIZE_FLAGS -fsanitize=thread -fno-omit-frame-pointer)
  # oneTBB runs its tasks on the calling thread only (algorithms/parallel.cc): the system libtbb is not
  # instrumented, so TSan cannot see the synchronisation of its worker hand-offs.
  add_compile_definitions(KEXT_TBB_SERIAL=1)
elseif(NOT KEXT_SANITIZE STREQUAL "")
  message(FATAL_ERROR "KEXT_SANITIZE must be address, thread or empty, not '${KEXT_SANITIZE}'")
endif()
add_compile_options(${KEXT_SANITIZE_FLAGS})
add_link_options(${KEXT_SANITIZE_FLAGS})
