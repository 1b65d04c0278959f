# SPDX-License-Identifier: MIT
# Debian packages (cpack -G DEB, see .ci/package): gatehouse-cli (headless:
# no Qt Widgets) and gatehouse (the console, which depends on gatehouse-cli).
# Runtime dependencies come from dpkg-shlibdeps; Qt plugins, which no binary
# links, are named by hand.

# The version is project()'s; a release tag (vX.Y.Z) on the commit built must
# name the same version.
find_package(Git QUIET)
if(GIT_FOUND AND EXISTS ${PROJECT_SOURCE_DIR}/.git)
    execute_process(COMMAND ${GIT_EXECUTABLE} describe --tags --exact-match --match "v[0-9]*"
                    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR} OUTPUT_VARIABLE gatehouse_tag
                    OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    if(gatehouse_tag AND NOT gatehouse_tag STREQUAL "v${PROJECT_VERSION}")
        message(FATAL_ERROR "The commit is tagged ${gatehouse_tag} but project() says "
                            "${PROJECT_VERSION}: make them agree in CMakeLists.txt.")
    endif()
endif()

set(CPACK_PACKAGE_NAME gatehouse)
set(CPACK_PACKAGE_VENDOR "The Gatehouse authors")
set(CPACK_PACKAGE_CONTACT "The Gatehouse authors <gatehouse@users.noreply.github.com>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_STRIP_FILES ON)
set(CPACK_GENERATOR DEB)
set(CPACK_COMPONENTS_ALL cli gui)

set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_ENABLE_COMPONENT_DEPENDS ON)
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "https://github.com/gatehouse/gatehouse")
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${CPACK_PACKAGE_CONTACT}")

set(CPACK_COMPONENT_CLI_DISPLAY_NAME "gatehouse-cli")
set(CPACK_COMPONENT_GUI_DISPLAY_NAME "gatehouse")
set(CPACK_COMPONENT_GUI_DEPENDS cli)

set(CPACK_DEBIAN_CLI_PACKAGE_NAME gatehouse-cli)
set(CPACK_DEBIAN_CLI_PACKAGE_SECTION utils)
# The history file is SQLite through Qt SQL's plugin.
set(CPACK_DEBIAN_CLI_PACKAGE_DEPENDS "libqt6sql6-sqlite")
set(CPACK_DEBIAN_CLI_PACKAGE_RECOMMENDS "redis-server")
string(CONCAT CPACK_COMPONENT_CLI_DESCRIPTION
    "Operator console for Redis coordination: command line\n"
    "Finds the rate limiters, locks, one-time tokens, semaphores and job queues\n"
    "(BullMQ, Bull, Sidekiq, Celery, RQ, Redisson) kept in a Redis server,\n"
    "Cluster or Sentinel set, and reads, watches and operates on them with\n"
    "audited, type-checked Lua scripts. Serves Prometheus metrics and checks\n"
    "alert rules from cron. redis-server is needed for the demo.")

set(CPACK_DEBIAN_GUI_PACKAGE_NAME gatehouse)
set(CPACK_DEBIAN_GUI_PACKAGE_SECTION net)
# The window needs a platform plugin (xcb, wayland) and its icon the SVG one.
set(CPACK_DEBIAN_GUI_PACKAGE_DEPENDS "qt6-qpa-plugins")
set(CPACK_DEBIAN_GUI_PACKAGE_RECOMMENDS "redis-server, libqt6svg6")
string(CONCAT CPACK_COMPONENT_GUI_DESCRIPTION
    "Operator console for Redis coordination: desktop console\n"
    "A Qt desktop console over the same backend as gatehouse-cli: pages for\n"
    "limiters, locks, tokens, queues (a job browser for each library),\n"
    "semaphores and nodes, live and historical charts, alerts, and confirmed,\n"
    "audited actions. gatehouse --demo runs it against a private redis-server.")

include(CPack)
