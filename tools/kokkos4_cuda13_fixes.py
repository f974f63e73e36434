#!/usr/bin/env python3
# SPDX-FileCopyrightText: 2026 AsyncSparse contributors
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Apply the three fixes Kokkos 4.6.01 needs for CUDA 13.

Usage: kokkos4_cuda13_fixes.py KOKKOS_SOURCE_DIR

1. core/src/Cuda/Kokkos_Cuda_Instance.hpp: CUDA 13's cudaGraphAddDependencies takes an edge-data argument
   (const cudaGraphEdgeData*, nullptr = default edges) before the count.
2. core/src/Cuda/Kokkos_Cuda_Instance.hpp: CUDA 13's cudaMemPrefetchAsync takes a cudaMemLocation and a flags
   argument instead of a device number.
3. core/src/Cuda/Kokkos_Cuda_Instance.hpp: CUDA 13's cudaMemAdvise takes a cudaMemLocation instead of a device
   number (a negative number, cudaCpuDeviceId, names the host).

All three are guarded by CUDART_VERSION, so the patched source still builds with older CUDA. Each edit is checked:
if the expected text is not found, the script fails with a message.
"""
import pathlib
import sys


def patch(path: pathlib.Path, old: str, new: str, what: str) -> None:
    text = path.read_text()
    if new in text:
        return  # already applied
    if old not in text:
        sys.exit(f"kokkos4_cuda13_fixes: cannot apply '{what}': expected text not found in {path}")
    path.write_text(text.replace(old, new, 1))


def main() -> None:
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    inst = pathlib.Path(sys.argv[1]) / "core/src/Cuda/Kokkos_Cuda_Instance.hpp"
    patch(inst,
          "    return cudaGraphAddDependencies(graph, from, to, numDependencies);",
          "#if defined(CUDART_VERSION) && CUDART_VERSION >= 13000\n"
          "    return cudaGraphAddDependencies(graph, from, to, nullptr, numDependencies);\n"
          "#else\n"
          "    return cudaGraphAddDependencies(graph, from, to, numDependencies);\n"
          "#endif",
          "cudaGraphAddDependencies")
    patch(inst,
          "    return cudaMemPrefetchAsync(devPtr, count, dstDevice,\n"
          "                                get_input_stream(stream));",
          "#if defined(CUDART_VERSION) && CUDART_VERSION >= 13000\n"
          "    cudaMemLocation loc{};\n"
          "    loc.type = cudaMemLocationTypeDevice;\n"
          "    loc.id   = dstDevice;\n"
          "    return cudaMemPrefetchAsync(devPtr, count, loc, 0u, get_input_stream(stream));\n"
          "#else\n"
          "    return cudaMemPrefetchAsync(devPtr, count, dstDevice,\n"
          "                                get_input_stream(stream));\n"
          "#endif",
          "cudaMemPrefetchAsync")
    patch(inst,
          "    return cudaMemAdvise(devPtr, count, advice, device);",
          "#if defined(CUDART_VERSION) && CUDART_VERSION >= 13000\n"
          "    cudaMemLocation loc{};\n"
          "    loc.type = device < 0 ? cudaMemLocationTypeHost : cudaMemLocationTypeDevice;\n"
          "    loc.id   = device < 0 ? 0 : device;\n"
          "    return cudaMemAdvise(devPtr, count, advice, loc);\n"
          "#else\n"
          "    return cudaMemAdvise(devPtr, count, advice, device);\n"
          "#endif",
          "cudaMemAdvise")
    print("kokkos4_cuda13_fixes: applied to", inst.parent.parent.parent.parent)


if __name__ == "__main__":
    main()
