/*
 * winograd_f2x2.cuh - the Winograd F(2x2, 3x3) transforms (library layer), shared by the F(2x2) kernels: the
 * superseded fp32-v7 and v8 (history/fused_fp32_winograd_f2x2.cu, Cin = 8, Cout = 64) and fp32-v11, the Winograd
 * GEMM for any channel count (fused_fp32_winograd_gemm.cu).
 *
 *   WinogradF2x2::filter_transform          U = G g G^T of a 3x3 filter
 *   WinogradF2x2::filter_transform_scaled   S U: the same without G's halves (3 additions a line instead of 5
 *                                           operations); element (r, c) is filter_scale(r) x filter_scale(c)
 *                                           times U's, a power of two, so multiplying M by its reciprocal
 *                                           later is exact
 *   WinogradF2x2::input_tile_transform      V = B^T d B of a 4x4 input patch (additions only)
 *   WinogradF2x2::output_tile_transform     Y = A^T m A, the 2x2 outputs of a transformed tile (additions only)
 *   load_patch                              a 4x4 input patch from shared memory
 */
#ifndef CGP_WINOGRAD_F2X2_CUH
#define CGP_WINOGRAD_F2X2_CUH

namespace {

/* Winograd F(2x2, 3x3) (Lavin & Gray 2015): 4x4 input patches and transformed tiles, 2x2 outputs.
 * B^T = [1 0 -1 0; 0 1 1 0; 0 -1 1 0; 0 1 0 -1], G = [1 0 0; .5 .5 .5; .5 -.5 .5; 0 0 1], A^T = [1 1 1 0; 0 1 -1 -1] */
struct WinogradF2x2 {
    static constexpr int kAlpha = 4;
    /* the transformed-tile element (1, 1): column 1 of A^T is all ones, so the output transform adds it to every
     * output, which makes it where the bias enters */
    static constexpr int kBiasElement = 1 * kAlpha + 1;

    /* U = G g G^T for the 3x3 filter g */
    static __device__ __forceinline__ void filter_transform(const float g[3][3], float u[4][4])
    {
        float a[4][3];
    #pragma unroll
        for (int c = 0; c < 3; ++c) {
            a[0][c] = g[0][c];
            a[1][c] = 0.5f * (g[0][c] + g[1][c] + g[2][c]);
            a[2][c] = 0.5f * (g[0][c] - g[1][c] + g[2][c]);
            a[3][c] = g[2][c];
        }
    #pragma unroll
        for (int r = 0; r < 4; ++r) {
            u[r][0] = a[r][0];
            u[r][1] = 0.5f * (a[r][0] + a[r][1] + a[r][2]);
            u[r][2] = 0.5f * (a[r][0] - a[r][1] + a[r][2]);
            u[r][3] = a[r][2];
        }
    }

    /* G without its halves along each line: element (r, c) of the result is filter_scale(r) x filter_scale(c)
     * times U's */
    static __host__ __device__ constexpr float filter_scale(int r) { return r == 1 || r == 2 ? 2.0f : 1.0f; }
    static __device__ __forceinline__ void filter_transform_scaled(const float g[3][3], float u[4][4])
    {
        float a[4][3];
    #pragma unroll
        for (int c = 0; c < 3; ++c) {
            const float outer = g[0][c] + g[2][c];
            a[0][c] = g[0][c];
            a[1][c] = outer + g[1][c];
            a[2][c] = outer - g[1][c];
            a[3][c] = g[2][c];
        }
    #pragma unroll
        for (int r = 0; r < 4; ++r) {
            const float outer = a[r][0] + a[r][2];
            u[r][0] = a[r][0];
            u[r][1] = outer + a[r][1];
            u[r][2] = outer - a[r][1];
            u[r][3] = a[r][2];
        }
    }

    /* V = B^T d B for the 4x4 input patch d */
    static __device__ __forceinline__ void input_tile_transform(const float d[4][4], float v[4][4])
    {
        float t[4][4];
    #pragma unroll
        for (int c = 0; c < 4; ++c) {
            t[0][c] = d[0][c] - d[2][c];
            t[1][c] = d[1][c] + d[2][c];
            t[2][c] = d[2][c] - d[1][c];
            t[3][c] = d[1][c] - d[3][c];
        }
    #pragma unroll
        for (int r = 0; r < 4; ++r) {
            v[r][0] = t[r][0] - t[r][2];
            v[r][1] = t[r][1] + t[r][2];
            v[r][2] = t[r][2] - t[r][1];
            v[r][3] = t[r][1] - t[r][3];
        }
    }

    /* Y = A^T m A: 2x2 outputs from the 16 values of one (tile, channel) */
    static __device__ __forceinline__ void output_tile_transform(const float m[16], float y[2][2])
    {
        float s[2][4];
    #pragma unroll
        for (int c = 0; c < 4; ++c) {
            s[0][c] = m[c] + m[4 + c] + m[8 + c];
            s[1][c] = m[4 + c] - m[8 + c] - m[12 + c];
        }
    #pragma unroll
        for (int r = 0; r < 2; ++r) {
            y[r][0] = s[r][0] + s[r][1] + s[r][2];
            y[r][1] = s[r][1] - s[r][2] - s[r][3];
        }
    }
};

/* The 4x4 input patch d at src, its rows `pitch` floats apart (src and pitch even: 8-byte loads) */
__device__ __forceinline__ void load_patch(const float *src, int pitch, float d[4][4])
{
#pragma unroll
    for (int r = 0; r < 4; ++r) {
        const float2 a = *reinterpret_cast<const float2 *>(src + r * pitch);
        const float2 b = *reinterpret_cast<const float2 *>(src + r * pitch + 2);
        d[r][0] = a.x;
        d[r][1] = a.y;
        d[r][2] = b.x;
        d[r][3] = b.y;
    }
}

} // namespace

#endif
