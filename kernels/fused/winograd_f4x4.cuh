/*
 * winograd_f4x4.cuh - the Winograd F(4x4, 3x3) transforms (library layer), shared by fp32-v9 (fused_fp32_winograd.cu,
 * Cin = 8, Cout = 64) and fp32-v12, the F(4x4) Winograd GEMM for any channel count (fused_fp32_winograd_gemm.cu).
 *
 *   load_patch_6x6<kPitch>                  a 6x6 input patch from a staged window whose rows are kPitch floats
 *                                           apart (a multiple of 4), the patch 0 or 3 (lead) floats past a
 *                                           16-byte boundary
 *   input_transform_1d                      B^T d along one line of a 6x6 patch
 *   output_transform_1d                     A^T m along one line of a transformed tile
 *   WinogradF4x4::filter_transform          U = G g G^T of a 3x3 filter, in double and rounded once (fp32-v9)
 *   WinogradF4x4::filter_transform_scaled   S U S in fp32: G's rows scaled to integers (filter_scale: 4, -6, -6,
 *                                           24, 24, 1), so each product with g is exact and only the sums round
 *                                           (fp32-v12, which transforms its filters chunk by chunk)
 *   WinogradF4x4::input_tile_transform      V = B^T d B of a 6x6 input patch
 *   WinogradF4x4::output_tile_transform     Y = A^T m A, the 4x4 outputs of a transformed tile
 */
#ifndef CGP_WINOGRAD_F4X4_CUH
#define CGP_WINOGRAD_F4X4_CUH

namespace {

/* The 6x6 input patch d from src, rows kPitch floats apart. kPitch a multiple of 4: src `lead` floats past a
 * 16-byte boundary: lead 0, a float4 and a float2 a row; lead 3 (a window staged from 4 columns left of it so that
 * its copies start at a multiple of 4 columns: fp32-v12's TMA boxes for padding same), a float, a float4 and a
 * float. kPitch 2 modulo 4 (fp32-v12's windows by cp.async): src 8-byte aligned (lead 0), three float2 a row. fp32-v9
 * keeps its own copy of these loads: through this function its register allocation changed, not measured since. */
template <int kPitch> __device__ __forceinline__ void load_patch_6x6(const float *src, int lead, float (&d)[6][6])
{
    static_assert(kPitch % 2 == 0, "8-byte aligned rows");
#pragma unroll
    for (int r = 0; r < 6; ++r) {
        const float *row = src + r * kPitch;
        if constexpr (kPitch % 4 != 0) {
            const float2 a = *reinterpret_cast<const float2 *>(row), b = *reinterpret_cast<const float2 *>(row + 2),
                         c = *reinterpret_cast<const float2 *>(row + 4);
            d[r][0] = a.x, d[r][1] = a.y, d[r][2] = b.x, d[r][3] = b.y, d[r][4] = c.x, d[r][5] = c.y;
        } else if (lead == 0) {
            const float4 a = *reinterpret_cast<const float4 *>(row);
            const float2 b = *reinterpret_cast<const float2 *>(row + 4);
            d[r][0] = a.x, d[r][1] = a.y, d[r][2] = a.z, d[r][3] = a.w, d[r][4] = b.x, d[r][5] = b.y;
        } else {
            const float4 a = *reinterpret_cast<const float4 *>(row + 1);
            d[r][0] = row[0], d[r][1] = a.x, d[r][2] = a.y, d[r][3] = a.z, d[r][4] = a.w, d[r][5] = row[5];
        }
    }
}

/* B^T d for six values d (one column or row of a 6x6 patch): 12 operations.
 * B^T = [4 0 -5 0 1 0; 0 -4 -4 1 1 0; 0 4 -4 -1 1 0; 0 -2 -1 2 1 0; 0 2 -1 -2 1 0; 0 4 0 -5 0 1] */
__device__ __forceinline__ void input_transform_1d(const float d[6], float r[6])
{
    const float t1 = fmaf(-4.0f, d[2], d[4]), t2 = fmaf(-4.0f, d[1], d[3]);
    const float t3 = d[4] - d[2], t4 = d[3] - d[1];
    r[0] = fmaf(4.0f, d[0], fmaf(-5.0f, d[2], d[4]));
    r[1] = t1 + t2;
    r[2] = t1 - t2;
    r[3] = fmaf(2.0f, t4, t3);
    r[4] = fmaf(-2.0f, t4, t3);
    r[5] = fmaf(4.0f, d[1], fmaf(-5.0f, d[3], d[5]));
}

/* A^T m for six values m: 10 operations. A^T = [1 1 1 1 1 0; 0 1 -1 2 -2 0; 0 1 1 4 4 0; 0 1 -1 8 -8 1] */
__device__ __forceinline__ void output_transform_1d(const float m[6], float o[4])
{
    const float s1 = m[1] + m[2], d1 = m[1] - m[2], s2 = m[3] + m[4], d2 = m[3] - m[4];
    o[0] = m[0] + s1 + s2;
    o[1] = fmaf(2.0f, d2, d1);
    o[2] = fmaf(4.0f, s2, s1);
    o[3] = fmaf(8.0f, d2, d1) + m[5];
}

/* Winograd F(4x4, 3x3) from the points 0, +-1, +-2: 6x6 input patches and transformed tiles, 4x4 outputs */
struct WinogradF4x4 {
    static constexpr int kAlpha = 6;
    /* the transformed-tile element (1, 1): column 1 of A^T is all ones, so the output transform adds it to every
     * output, which makes it where the bias enters */
    static constexpr int kBiasElement = 1 * kAlpha + 1;

    /* U = G g G^T, 6 x 6, for the 3x3 filter g, in double and rounded once (G has 1/6, 1/12 and 1/24) */
    static __device__ __forceinline__ void filter_transform(const float g[3][3], float u[6][6])
    {
        constexpr double G[6][3] = {{1.0 / 4, 0, 0},
                                    {-1.0 / 6, -1.0 / 6, -1.0 / 6},
                                    {-1.0 / 6, 1.0 / 6, -1.0 / 6},
                                    {1.0 / 24, 1.0 / 12, 1.0 / 6},
                                    {1.0 / 24, -1.0 / 12, 1.0 / 6},
                                    {0, 0, 1}};
        double a[6][3];
    #pragma unroll
        for (int r = 0; r < 6; ++r)
    #pragma unroll
            for (int c = 0; c < 3; ++c)
                a[r][c] = G[r][0] * g[0][c] + G[r][1] * g[1][c] + G[r][2] * g[2][c];
    #pragma unroll
        for (int r = 0; r < 6; ++r)
    #pragma unroll
            for (int c = 0; c < 6; ++c)
                u[r][c] = (float)(a[r][0] * G[c][0] + a[r][1] * G[c][1] + a[r][2] * G[c][2]);
    }

    /* G with row r multiplied by filter_scale(r): [1 0 0; 1 1 1; 1 -1 1; 1 2 4; 1 -2 4; 0 0 1]. Element (r, c) of
     * filter_transform_scaled's result is filter_scale(r) x filter_scale(c) times U's. */
    static __host__ __device__ constexpr float filter_scale(int r)
    {
        return r == 0 ? 4.0f : r <= 2 ? -6.0f : r <= 4 ? 24.0f : 1.0f;
    }
    /* the scaled G along one line of three values: 6 operations, each product exact (coefficients 1, 2, 4) */
    static __device__ __forceinline__ void scaled_line(float g0, float g1, float g2, float a[6])
    {
        const float outer = g0 + g2, wide = fmaf(4.0f, g2, g0);
        a[0] = g0;
        a[1] = outer + g1;
        a[2] = outer - g1;
        a[3] = fmaf(2.0f, g1, wide);
        a[4] = fmaf(-2.0f, g1, wide);
        a[5] = g2;
    }
    static __device__ __forceinline__ void filter_transform_scaled(const float g[3][3], float u[6][6])
    {
        float a[6][3];
    #pragma unroll
        for (int c = 0; c < 3; ++c) {
            float line[6];
            scaled_line(g[0][c], g[1][c], g[2][c], line);
    #pragma unroll
            for (int r = 0; r < 6; ++r)
                a[r][c] = line[r];
        }
    #pragma unroll
        for (int r = 0; r < 6; ++r)
            scaled_line(a[r][0], a[r][1], a[r][2], u[r]);
    }

    /* V = B^T d B of the 6x6 input patch d: along y, then along x */
    static __device__ __forceinline__ void input_tile_transform(const float d[6][6], float v[6][6])
    {
        float t[6][6];
    #pragma unroll
        for (int c = 0; c < 6; ++c) { /* along y: t[.][c] = B^T d[.][c] */
            float col[6], out[6];
    #pragma unroll
            for (int r = 0; r < 6; ++r)
                col[r] = d[r][c];
            input_transform_1d(col, out);
    #pragma unroll
            for (int r = 0; r < 6; ++r)
                t[r][c] = out[r];
        }
    #pragma unroll
        for (int r = 0; r < 6; ++r) /* along x */
            input_transform_1d(t[r], v[r]);
    }

    /* Y = A^T m A, the 4x4 outputs of one (tile, channel) from its 36 values m[xi], xi = 6 (y index) + (x index) */
    static __device__ __forceinline__ void output_tile_transform(const float m[36], float y[4][4])
    {
        float t[6][4]; /* along x */
    #pragma unroll
        for (int i = 0; i < 6; ++i)
            output_transform_1d(m + 6 * i, t[i]);
    #pragma unroll
        for (int c = 0; c < 4; ++c) { /* along y */
            float col[6], out[4];
    #pragma unroll
            for (int i = 0; i < 6; ++i)
                col[i] = t[i][c];
            output_transform_1d(col, out);
    #pragma unroll
            for (int r = 0; r < 4; ++r)
                y[r][c] = out[r];
        }
    }
};

} // namespace

#endif
