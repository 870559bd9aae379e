// The translation unit that the precompiled headers (cmake/precompiled_headers.cmake) are built with.
