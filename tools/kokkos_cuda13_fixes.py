#!/usr/bin/env python3
# SPDX-FileCopyrightText: 2026 AsyncSparse contributors
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Apply the three fixes Kokkos 3.4.01 needs for CUDA 13 and Hopper (sm_90).

Usage: kokkos_cuda13_fixes.py KOKKOS_SOURCE_DIR

1. core/src/Cuda/Kokkos_Cuda_Half.hpp: the __half based half_t does not compile against CUDA 13's
   cuda_fp16.h. The block is disabled; Kokkos then uses its float-based half_t.
2. core/src/Cuda/Kokkos_CudaSpace.cpp: CUDA 13's cudaMemPrefetchAsync takes a cudaMemLocation and a
   flags argument.
3. cmake/kokkos_arch.cmake: there is no Hopper option; HOPPER90 is added, mapped to sm_90 and to the
   Ampere architecture group (same code paths in Kokkos 3.4).

Each edit is checked: if the expected text is not found, the script fails with a message.
"""
import pathlib
import sys


def patch(path: pathlib.Path, old: str, new: str, what: str) -> None:
    text = path.read_text()
    if new in text:
        return  # already applied
    if old not in text:
        sys.exit(f"kokkos_cuda13_fixes: cannot apply '{what}': expected text not found in {path}")
    path.write_text(text.replace(old, new, 1))


def main() -> None:
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    root = pathlib.Path(sys.argv[1])

    patch(root / "core/src/Cuda/Kokkos_Cuda_Half.hpp",
          "#if !(defined(KOKKOS_COMPILER_CLANG) && KOKKOS_COMPILER_CLANG < 900) && \\",
          "#if 0 /* AsyncSparse: __half half_t disabled for CUDA 13 */ && \\\n"
          "    !(defined(KOKKOS_COMPILER_CLANG) && KOKKOS_COMPILER_CLANG < 900) && \\",
          "half_t")

    patch(root / "core/src/Cuda/Kokkos_CudaSpace.cpp",
          "    CUDA_SAFE_CALL(cudaMemPrefetchAsync(ptr, bytes, space.cuda_device(),\n"
          "                                        space.cuda_stream()));",
          "#if defined(CUDART_VERSION) && CUDART_VERSION >= 13000\n"
          "    cudaMemLocation loc{};\n"
          "    loc.type = cudaMemLocationTypeDevice;\n"
          "    loc.id   = space.cuda_device();\n"
          "    CUDA_SAFE_CALL(cudaMemPrefetchAsync(ptr, bytes, loc, 0u, space.cuda_stream()));\n"
          "#else\n"
          "    CUDA_SAFE_CALL(cudaMemPrefetchAsync(ptr, bytes, space.cuda_device(),\n"
          "                                        space.cuda_stream()));\n"
          "#endif",
          "cudaMemPrefetchAsync")

    arch = root / "cmake/kokkos_arch.cmake"
    patch(arch,
          'KOKKOS_ARCH_OPTION(AMPERE86        GPU  "NVIDIA Ampere generation CC 8.6")',
          'KOKKOS_ARCH_OPTION(AMPERE86        GPU  "NVIDIA Ampere generation CC 8.6")\n'
          'KOKKOS_ARCH_OPTION(HOPPER90        GPU  "NVIDIA Hopper generation CC 9.0")',
          "HOPPER90 option")
    patch(arch, "CHECK_CUDA_ARCH(AMPERE86  sm_86)",
          "CHECK_CUDA_ARCH(AMPERE86  sm_86)\nCHECK_CUDA_ARCH(HOPPER90  sm_90)", "HOPPER90 arch flag")
    patch(arch, "IF (KOKKOS_ARCH_AMPERE80 OR KOKKOS_ARCH_AMPERE86)",
          "IF (KOKKOS_ARCH_AMPERE80 OR KOKKOS_ARCH_AMPERE86 OR KOKKOS_ARCH_HOPPER90)", "HOPPER90 group")
    patch(root / "cmake/KokkosCore_config.h.in", "#cmakedefine KOKKOS_ARCH_AMPERE86",
          "#cmakedefine KOKKOS_ARCH_AMPERE86\n#cmakedefine KOKKOS_ARCH_HOPPER90", "HOPPER90 define")
    print("kokkos_cuda13_fixes: applied to", root)


if __name__ == "__main__":
    main()
