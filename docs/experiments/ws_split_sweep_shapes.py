#!/usr/bin/env python3
"""ws_split_sweep_shapes.py SEED COUNT - COUNT random shapes (CSV for `cgp bench --zoo`) in tf32-v21's K-split
domain: 400 or fewer (image, 8x16 tile, 64-channel block) items, 0.3 to 40 GFLOP of convolution, N 1-64, H and W
3-28, Cin 64-1024 and Cout 48-768 log-uniform, either padding. Not shapes of the repository: the sample that
ws_split_k_run3.sh times every (channels, split) pair of ws_choose on."""
import math
import random
import sys

r = random.Random(int(sys.argv[1]))
want = int(sys.argv[2])
print("n,cin,cout,h,w,padding,label")
k = 0
while k < want:
    n = int(round(math.exp(r.uniform(0, math.log(64)))))
    h = r.randint(3, 28)
    w = max(3, min(28, h + r.randint(-4, 4)))
    cin = int(round(math.exp(r.uniform(math.log(64), math.log(1024)))))
    cout = int(round(math.exp(r.uniform(math.log(48), math.log(768)))))
    pad = r.choice(["same", "valid"])
    ho, wo = (h, w) if pad == "same" else (h - 2, w - 2)
    items = n * math.ceil(ho / 8) * math.ceil(wo / 16) * math.ceil(cout / 64)
    flop = 2 * n * ho * wo * cout * cin * 9 if ho > 0 and wo > 0 else 0
    if items > 400 or not 3e8 <= flop <= 4e10:
        continue
    print(f"{n},{cin},{cout},{h},{w},{pad},r{k}")
    k += 1
