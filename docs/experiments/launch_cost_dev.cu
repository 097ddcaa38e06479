// dev: host microseconds of the CUDA runtime calls a cgp launch makes (throwaway)
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime.h>
#include <chrono>
#include <cstdio>
__global__ void big_smem(float *out, const __grid_constant__ CUtensorMap map) { extern __shared__ float s[]; if (threadIdx.x == 9999) out[0] = s[0] + (float)(size_t)&map; }
__global__ void plain(float *out) { if (threadIdx.x == 9999) out[0] = 1.f; }
template <class F> double us(F f, int n) {
    auto t = std::chrono::steady_clock::now();
    for (int i = 0; i < n; ++i) f();
    double r = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t).count() / n;
    cudaDeviceSynchronize();
    return r;
}
int main() {
    float *out; cudaMalloc(&out, 1 << 20);
    CUtensorMap map = {};
    cudaFuncSetAttribute(big_smem, cudaFuncAttributeMaxDynamicSharedMemorySize, 200000);
    int dev;
    const int n = 400;
    for (int rep = 0; rep < 3; ++rep) {
        printf("cudaGetDevice %.2f\n", us([&] { cudaGetDevice(&dev); }, n));
        printf("cudaFuncSetAttribute %.2f\n", us([&] { cudaFuncSetAttribute(big_smem, cudaFuncAttributeMaxDynamicSharedMemorySize, 200000); }, n));
        printf("cudaFuncGetAttributes %.2f\n", us([&] { cudaFuncAttributes a; cudaFuncGetAttributes(&a, big_smem); }, n));
        cudaLaunchConfig_t c = {}; c.gridDim = dim3(132); c.blockDim = dim3(128); c.dynamicSmemBytes = 200000;
        void *argv[] = {&out, &map};
        printf("cudaLaunchKernelExC (map param, 200 KB) %.2f\n", us([&] { cudaLaunchKernelExC(&c, (const void *)big_smem, argv); }, n));
        cudaLaunchAttribute cl; cl.id = cudaLaunchAttributeClusterDimension; cl.val.clusterDim.x = 1; cl.val.clusterDim.y = 1; cl.val.clusterDim.z = 2;
        cudaLaunchConfig_t c2 = c; c2.gridDim = dim3(132, 1, 2); c2.attrs = &cl; c2.numAttrs = 1;
        printf("cudaLaunchKernelExC cluster 2 %.2f\n", us([&] { cudaLaunchKernelExC(&c2, (const void *)big_smem, argv); }, n));
        printf("plain <<<>>> %.2f\n", us([&] { plain<<<132, 128>>>(out); }, n));
        void *fn = nullptr; cudaDriverEntryPointQueryResult found;
        cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &found);
        auto enc = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(fn);
        cuuint64_t dims[4] = {16, 16, 256, 16}, strides[3] = {64, 1024, 262144};
        cuuint32_t box[4] = {20, 18, 8, 1}, unit[4] = {1, 1, 1, 1};
        printf("cuTensorMapEncodeTiled %.2f\n", us([&] { enc(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, out, dims, strides, box, unit, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE); }, n));
        printf("error %s\n", cudaGetErrorString(cudaGetLastError()));
    }
}
