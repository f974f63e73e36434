#!/usr/bin/env python3
# SPDX-FileCopyrightText: 2026 AsyncSparse contributors
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Apply the fixes Kokkos 3.4.01 needs to build its HIP backend with Debian 12's ROCm 5.2 (hipcc, clang 15).

Usage: kokkos_hip_fixes.py KOKKOS_SOURCE_DIR

1. cmake/kokkos_arch.cmake: there is no MI200 option; VEGA90A is added and mapped to gfx90a (what Kokkos 3.5
   does). Kokkos 3.4.01 has no per-architecture code paths for the VEGA family, so the flag is all it needs.

Nothing else had to change: Kokkos, Kokkos-Kernels 3.4.01 (TPLs off) and AsyncSparse compile for gfx90a with
hipcc 5.2 (clang 15) as they are. tools/bootstrap also sets HCC_AMDGPU_TARGET=gfx90a, since hipcc otherwise asks
rocm_agent_enumerator for the GPU, which fails on a machine without one.

Each edit is checked: if the expected text is not found, the script fails with a message.
"""
import pathlib
import sys


def patch(path: pathlib.Path, old: str, new: str, what: str) -> None:
    if not path.is_file():
        sys.exit(f"kokkos_hip_fixes: cannot apply '{what}': {path} not found (not a Kokkos 3.4 source tree?)")
    text = path.read_text()
    if new in text:
        return  # already applied
    if old not in text:
        sys.exit(f"kokkos_hip_fixes: cannot apply '{what}': expected text not found in {path}")
    path.write_text(text.replace(old, new, 1))


def main() -> None:
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    root = pathlib.Path(sys.argv[1])

    arch = root / "cmake/kokkos_arch.cmake"
    patch(arch,
          'KOKKOS_ARCH_OPTION(VEGA908         GPU  "AMD GPU MI100 GFX908")',
          'KOKKOS_ARCH_OPTION(VEGA908         GPU  "AMD GPU MI100 GFX908")\n'
          'KOKKOS_ARCH_OPTION(VEGA90A         GPU  "AMD GPU MI200 series GFX90A")',
          "VEGA90A option")
    patch(arch, "CHECK_AMDGPU_ARCH(VEGA908 gfx908)",
          "CHECK_AMDGPU_ARCH(VEGA908 gfx908)\nCHECK_AMDGPU_ARCH(VEGA90A gfx90a) # MI200 series", "VEGA90A arch flag")
    print("kokkos_hip_fixes: applied to", root)


if __name__ == "__main__":
    main()
