# One static library per source folder, and a check that every #include follows the link graph.
#
#   kext_library(<target> <dir> [RECURSE] [PUBLIC deps...] [PRIVATE deps...])
#
# The target's sources are <dir>/*.cc (with RECURSE, also its subfolders; main.cc is never part of a
# library). A file of <dir> may include "<other>/x.h" only if <other>'s library is the target itself or
# reachable through its links; a header may include only what its PUBLIC links reach, because every
# user of the header compiles that include. kext_check_layers() checks this at configure time and again
# at every build (target check_layers, in `all`), so an include that goes against the layers (json <-
# yaml; json, yaml, common <- algorithms <- policy <- extender/* <- tools, and json, common <-
# kubeobjects <- tools; kube/client, policy <- usage <- the extender's main) fails the build with the file
# and line.

set_property(GLOBAL PROPERTY KEXT_LAYER_TARGETS "")

function(kext_library target dir)
  cmake_parse_arguments(ARG "RECURSE" "" "PUBLIC;PRIVATE" ${ARGN})
  if(ARG_RECURSE)
    file(GLOB_RECURSE sources CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/${dir}/*.cc)
  else()
    file(GLOB sources CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/${dir}/*.cc)
  endif()
  list(FILTER sources EXCLUDE REGEX "/main\\.cc$")
  add_library(${target} STATIC ${sources})
  target_include_directories(${target} PUBLIC ${CMAKE_SOURCE_DIR})
  target_link_libraries(${target} PUBLIC ${ARG_PUBLIC} PRIVATE ${ARG_PRIVATE})
  set_target_properties(${target} PROPERTIES KEXT_DIR ${dir} KEXT_RECURSE "${ARG_RECURSE}" UNITY_BUILD ${KEXT_UNITY_BUILD})
  set_property(GLOBAL APPEND PROPERTY KEXT_LAYER_TARGETS ${target})
endfunction()

# The kext libraries reachable from `target` through `property` (LINK_LIBRARIES: everything it links;
# INTERFACE_LINK_LIBRARIES: what its users get), transitively through INTERFACE_LINK_LIBRARIES.
function(_kext_reach target property out)
  set(seen ${target})
  get_target_property(queue ${target} ${property})
  while(queue)
    list(POP_FRONT queue dep)
    if(dep MATCHES "^\\$<LINK_ONLY:" OR NOT TARGET ${dep} OR dep IN_LIST seen)
      continue()
    endif()
    get_target_property(kind ${dep} TYPE)
    if(kind STREQUAL "INTERFACE_LIBRARY")
      continue()
    endif()
    list(APPEND seen ${dep})
    get_target_property(more ${dep} INTERFACE_LINK_LIBRARIES)
    if(more)
      list(APPEND queue ${more})
    endif()
  endwhile()
  set(${out} ${seen} PARENT_SCOPE)
endfunction()

function(_kext_dirs targets out)
  set(dirs "")
  foreach(t ${targets})
    get_target_property(d ${t} KEXT_DIR)
    if(d)
      get_target_property(r ${t} KEXT_RECURSE)
      if(r)
        list(APPEND dirs "${d}/*")
      else()
        list(APPEND dirs "${d}")
      endif()
    endif()
  endforeach()
  set(${out} "${dirs}" PARENT_SCOPE)
endfunction()

# Arguments: executables whose sources (a main.cc) are checked against their own links.
function(kext_check_layers)
  set(manifest "")
  set(all_files "")
  get_property(libraries GLOBAL PROPERTY KEXT_LAYER_TARGETS)
  foreach(t ${libraries} ${ARGN})
    get_target_property(dir ${t} KEXT_DIR)
    get_target_property(recurse ${t} KEXT_RECURSE)
    get_target_property(kind ${t} TYPE)
    if(kind STREQUAL "EXECUTABLE")
      get_target_property(files ${t} SOURCES)
      list(TRANSFORM files PREPEND ${CMAKE_SOURCE_DIR}/)
    elseif(recurse)
      file(GLOB_RECURSE files ${CMAKE_SOURCE_DIR}/${dir}/*.h ${CMAKE_SOURCE_DIR}/${dir}/*.cc)
    else()
      file(GLOB files ${CMAKE_SOURCE_DIR}/${dir}/*.h ${CMAKE_SOURCE_DIR}/${dir}/*.cc)
    endif()
    if(NOT kind STREQUAL "EXECUTABLE")
      list(FILTER files EXCLUDE REGEX "/main\\.cc$")
    endif()
    _kext_reach(${t} LINK_LIBRARIES sources_reach)
    _kext_reach(${t} INTERFACE_LINK_LIBRARIES headers_reach)
    _kext_dirs("${sources_reach}" sources_dirs)
    _kext_dirs("${headers_reach}" headers_dirs)
    string(REPLACE ";" "," files_csv "${files}")
    string(REPLACE ";" "," s_csv "${sources_dirs}")
    string(REPLACE ";" "," h_csv "${headers_dirs}")
    string(APPEND manifest "${t}|${files_csv}|${s_csv}|${h_csv}\n")
    list(APPEND all_files ${files})
  endforeach()
  _kext_dirs("${libraries}" owned)
  string(REPLACE ";" "," owned_csv "${owned}")
  set(manifest_file ${CMAKE_BINARY_DIR}/layers.manifest)
  file(WRITE ${manifest_file} "owned|${owned_csv}\n${manifest}")
  execute_process(COMMAND ${CMAKE_COMMAND} -DMANIFEST=${manifest_file} -DROOT=${CMAKE_SOURCE_DIR}
                          -P ${CMAKE_SOURCE_DIR}/cmake/check_layers.cmake RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "an #include goes against the layers (above)")
  endif()
  add_custom_command(OUTPUT ${CMAKE_BINARY_DIR}/layers.ok
    COMMAND ${CMAKE_COMMAND} -DMANIFEST=${manifest_file} -DROOT=${CMAKE_SOURCE_DIR}
            -P ${CMAKE_SOURCE_DIR}/cmake/check_layers.cmake
    COMMAND ${CMAKE_COMMAND} -E touch ${CMAKE_BINARY_DIR}/layers.ok
    DEPENDS ${all_files} ${manifest_file} ${CMAKE_SOURCE_DIR}/cmake/check_layers.cmake
    COMMENT "Checking #include layers")
  add_custom_target(check_layers ALL DEPENDS ${CMAKE_BINARY_DIR}/layers.ok)
endfunction()
