// max_active_clusters_dev.cu - how many thread-block clusters of 1, 2, 4, 8 and 16 blocks of tf32-v21's launch (384 threads,
// one block an SM) the current GPU runs at once, by cudaOccupancyMaxActiveClusters, for each dynamic shared-memory size
// given in bytes: nvcc -arch=sm_90 -o clusters max_active_clusters_dev.cu && ./clusters 100000 200000 225000 (not yet run)
#include <cstdio>
#include <cstdlib>
__global__ void __launch_bounds__(384, 1) probe(float *x) { extern __shared__ float s[]; if (x) x[threadIdx.x] = s[threadIdx.x]; }
int main(int argc, char **argv)
{
    int sms = 0;
    const cudaError_t err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    if (err) { printf("no device: %s\n", cudaGetErrorString(err)); return 1; }
    for (int a = 1; a < argc; ++a) {
        const int smem = atoi(argv[a]);
        cudaError_t e = cudaFuncSetAttribute(probe, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
        if (!e)
            e = cudaFuncSetAttribute(probe, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
        if (e) { printf("smem %d: %s\n", smem, cudaGetErrorString(e)); continue; }
        for (int c = 1; c <= 16; c *= 2) {
            cudaLaunchConfig_t cfg = {};
            cfg.gridDim = dim3(c * sms, 1, 1); cfg.blockDim = dim3(384, 1, 1); cfg.dynamicSmemBytes = smem;
            cudaLaunchAttribute at[1]; at[0].id = cudaLaunchAttributeClusterDimension;
            at[0].val.clusterDim.x = c; at[0].val.clusterDim.y = 1; at[0].val.clusterDim.z = 1;
            cfg.attrs = at; cfg.numAttrs = 1;
            int n = -1; e = cudaOccupancyMaxActiveClusters(&n, probe, &cfg);
            printf("sms %d smem %d cluster %2d: max active clusters %d (%s), blocks %d\n", sms, smem, c, n,
                   cudaGetErrorString(e), n * c);
        }
    }
    return 0;
}
