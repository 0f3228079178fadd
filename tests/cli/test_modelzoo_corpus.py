"""Every model config of Model Zoo Releases 2.3.0 and 2.10.0 (../shared/modelzoo-corpus),
unchanged, through `describe --json` and `run --num-csx 1 --platform cs2`: each runs (exit 0, or
1 when nothing fits) or is refused for its family with the reason the README's family table
gives. No file is refused for a key, none is read as another family, and the parameter count of
every named size agrees with its published figure within 2 %."""
import json
import os
import sys
from concurrent.futures import ThreadPoolExecutor

from clitest import check, finish, run

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
CORPUS = os.path.normpath(os.path.join(ROOT, "..", "shared", "modelzoo-corpus"))

# Families refused on purpose, with the fragment of their reason (README, "Model Zoo families").
REFUSED = {"layers_api_demo": "demonstration of the Model Zoo layers API"}

# Files whose family is not their folder's: gpt_neox configs live in the gptj folder, the DINOv2
# linear-probe config is a plain ViT classifier, ESM-2 classifiers sit under esm2/classification.
FAMILY_EXCEPTIONS = {
    "nlp/gptj/configs/params_gpt_neox": "gpt_neox",
    "vision/dino/configs/params_dinov2_large_eval_linear": "vision_transformer",
}

# Published parameter counts: (corpus file, figure, source).
PUBLISHED = [
    ("Release_2.10.0/nlp/llama/configs/params_llama2_7b.yaml", 6.74e9,
     "Touvron et al. 2023, Llama 2, table 1 (6.74B in the released checkpoint)"),
    ("Release_2.10.0/nlp/llama/configs/params_llama2_13b.yaml", 13.0e9, "Touvron et al. 2023, table 1"),
    ("Release_2.10.0/nlp/llama/configs/params_llama2_70b.yaml", 69.0e9,
     "Touvron et al. 2023, table 1 (70B; 69.0B in the released checkpoint)"),
    ("Release_2.10.0/nlp/llama/configs/params_llama3p1_8b_msl_8k.yaml", 8.03e9,
     "Meta Llama 3.1 model card (8.03B)"),
    ("Release_2.10.0/nlp/llama/configs/params_llama3p1_70b_msl_8k.yaml", 70.6e9,
     "Meta Llama 3.1 model card (70.6B)"),
    ("Release_2.10.0/nlp/llama/configs/params_llama3p1_405b_msl_128k.yaml", 405e9,
     "Llama Team 2024, The Llama 3 Herd of Models, table 3 (this config has 16 kv groups, not 8: +1 %)"),
    ("Release_2.10.0/nlp/mistral/configs/params_mistral_7B_msl128k.yaml", 7.24e9,
     "Jiang et al. 2023, Mistral 7B (7.24B in the released checkpoint)"),
    ("Release_2.10.0/nlp/mistral/configs/params_mistral_12b.yaml", 12.2e9, "Mistral AI, Mistral NeMo (12B)"),
    ("Release_2.10.0/nlp/mixtral/configs/params_mixtral_8x7b.yaml", 46.7e9,
     "Jiang et al. 2024, Mixtral of Experts (46.7B total)"),
    ("Release_2.10.0/nlp/mixtral/configs/params_mixtral_8x22b.yaml", 141e9, "Mistral AI, Mixtral 8x22B (141B total)"),
    ("Release_2.10.0/nlp/falcon/configs/params_falcon_7b.yaml", 7.0e9, "Almazrouei et al. 2023, The Falcon Series"),
    ("Release_2.10.0/nlp/falcon/configs/params_falcon_180b.yaml", 180e9, "Almazrouei et al. 2023"),
    ("Release_2.10.0/nlp/bloom/configs/params_bloom_7b.yaml", 7069016064, "BigScience bloom-7b1 model card"),
    ("Release_2.10.0/nlp/gptj/configs/params_gptj_6B.yaml", 6053381344, "EleutherAI GPT-J-6B model card"),
    ("Release_2.3.0/nlp/gptj/configs/params_gpt_neox_20B.yaml", 20554567680,
     "Black et al. 2022, GPT-NeoX-20B (model card: 20,554,567,680)"),
    ("Release_2.10.0/nlp/btlm/configs/params_btlm_2p7b_8k.yaml", 2.7e9, "Cerebras Model Zoo BTLM README (2.7B)"),
    ("Release_2.10.0/nlp/jais/configs/params_jais_13b.yaml", 13.0e9, "Sengupta et al. 2023, Jais (13B)"),
    ("Release_2.10.0/nlp/jais/configs/params_jais_30b.yaml", 30.0e9, "Inception/Cerebras Jais-30B model card"),
    ("Release_2.10.0/nlp/starcoder/configs/params_starcoder_15b.yaml", 15.5e9, "Li et al. 2023, StarCoder (15.5B)"),
    ("Release_2.10.0/nlp/gemma2/configs/params_gemma2_9b_msl8k.yaml", 9.2417e9,
     "Gemma Team 2024, Gemma 2, table 1 (embedding + non-embedding)"),
    ("Release_2.10.0/nlp/gemma2/configs/params_gemma2_27b_msl8k.yaml", 27.2271e9, "Gemma Team 2024, table 1"),
    ("Release_2.3.0/nlp/esm2/configs/params_esm2_t30_150M_UR50D.yaml", 150e6, "Lin et al. 2023, ESM-2 (150M)"),
    ("Release_2.10.0/nlp/esm2/configs/params_esm2_t33_650M_UR50D.yaml", 650e6, "Lin et al. 2023 (650M)"),
    ("Release_2.10.0/nlp/esm2/configs/params_esm2_t48_15B_UR50D.yaml", 15e9, "Lin et al. 2023 (15B)"),
    ("Release_2.10.0/nlp/gpt3/configs/Cerebras_GPT/111m.yaml", 111e6, "Dey et al. 2023, Cerebras-GPT, table 1"),
    ("Release_2.10.0/nlp/gpt3/configs/Cerebras_GPT/256m.yaml", 256e6, "Dey et al. 2023, table 1"),
    ("Release_2.10.0/nlp/gpt3/configs/Cerebras_GPT/590m.yaml", 590e6, "Dey et al. 2023, table 1"),
    ("Release_2.10.0/nlp/gpt3/configs/Cerebras_GPT/1p3b.yaml", 1.3e9, "Dey et al. 2023, table 1"),
    ("Release_2.10.0/nlp/gpt3/configs/Cerebras_GPT/2p7b.yaml", 2.7e9, "Dey et al. 2023, table 1"),
    ("Release_2.10.0/nlp/gpt3/configs/Cerebras_GPT/6p7b.yaml", 6.7e9, "Dey et al. 2023, table 1"),
    ("Release_2.10.0/nlp/gpt3/configs/Cerebras_GPT/13b_bs720.yaml", 13e9, "Dey et al. 2023, table 1"),
    ("Release_2.10.0/nlp/t5/configs/t5_3B.yaml", 2.85e9,
     "Raffel et al. 2020, T5, section 3.7 ('3B'; 2.85B in the released checkpoint)"),
    ("Release_2.10.0/nlp/t5/configs/t5_11B.yaml", 11.3e9,
     "Raffel et al. 2020, section 3.7 ('11B'; 11.3B in the released checkpoint)"),
    ("Release_2.3.0/nlp/t5/configs/t5_base.yaml", 220e6, "Raffel et al. 2020, section 3.7 (220M)"),
    ("Release_2.3.0/nlp/bert/configs/bert_large_MSL128.yaml", 340e6, "Devlin et al. 2019, BERT, section 3 (340M)"),
    ("Release_2.10.0/vision/vision_transformer/configs/params_vit_base_patch_16_imagenet_1k.yaml", 86.6e6,
     "Dosovitskiy et al. 2021, ViT, table 1 (86M) plus its 1000-class head (0.77M)"),
    ("Release_2.10.0/vision/dit/configs/params_dit_xlarge_patchsize_2x2.yaml", 675e6,
     "Peebles & Xie 2023, DiT, table 1 (DiT-XL/2: 675M)"),
]
# Named sizes left out, and why: ESM-2 '35M' and '3B' are checkpoint names of 33.5M and 2.84B
# models (12 and 36 layers of 12 h^2); Falcon '40B' has 41.3B parameters in its published
# config, the same as the Model Zoo's.


def family_of_folder(rel):
    parts = rel.split("/")
    i = parts.index("configs") if "configs" in parts else len(parts) - 1
    fam = "/".join(parts[2:i])
    return fam.replace("/continuous_pretraining", "")


def one(path):
    rel = os.path.relpath(path, CORPUS)
    d = run("describe", path, "--json")
    r = run("run", path, "--num-csx", 1, "--platform", "cs2", "--quiet")
    return rel, d, r


files = sorted(os.path.join(dp, f) for dp, _, fs in os.walk(CORPUS) for f in fs if f.endswith(".yaml"))
if not files:
    print(f"no corpus at {CORPUS}: nothing to check")
    print("1 passed, 0 failed")
    sys.exit(0)
with ThreadPoolExecutor(max_workers=2) as pool:
    results = list(pool.map(one, files))

counts = {"run": 0, "nothing fits": 0, "refused": 0}
params = {}
for rel, d, r in results:
    stderr = d.stderr + r.stderr
    check("did you mean" not in stderr and "not defined by the Model Zoo" not in stderr,
          f"{rel}: a key warning or typo message: {stderr}")
    check("Traceback" not in stderr and "terminate called" not in stderr, f"{rel}: crash")
    if d.returncode == 2 or r.returncode == 2:
        refused = [f for f, why in REFUSED.items()
                   if f"model family '{f}' is not modelled" in stderr and why in stderr]
        check(bool(refused), f"{rel}: refused without a family-level reason: {stderr}")
        counts["refused"] += 1
        continue
    check(d.returncode == 0, f"{rel}: describe exit {d.returncode}: {d.stderr}")
    check(r.returncode in (0, 1), f"{rel}: run exit {r.returncode}: {r.stderr}")
    counts["run" if r.returncode == 0 else "nothing fits"] += 1
    j = json.loads(d.stdout)
    params[rel] = j["parameters"]
    folder = family_of_folder(rel)
    expected = next((f for p, f in FAMILY_EXCEPTIONS.items() if p in rel), folder)
    check(j["family"] == expected or (expected == "esm2/classification" and j["family"] == expected),
          f"{rel}: read as family {j['family']!r}, expected {expected!r}")
    check(j["seq_len"] > 0 and j["seq_len_from"], f"{rel}: no sequence length or its source")
    check(isinstance(j.get("ignored_keys"), list) and j.get("stacks") is not None,
          f"{rel}: describe lacks ignored_keys or stacks")

for rel, figure, source in PUBLISHED:
    got = params.get(rel)
    check(got is not None, f"{rel}: not counted")
    if got is not None:
        err = abs(got - figure) / figure
        check(err <= 0.02, f"{rel}: {got:,} parameters vs {figure:,.0f} published ({source}): {err:.1%}")

# The README's family table names every family of the catalog.
import re
catalog = [f["name"] for f in json.load(open(os.path.join(ROOT, "sim/input/modelzoo.json")))["families"]]
readme = open(os.path.join(ROOT, "README.md")).read()
table = [l for l in readme.splitlines() if l.startswith("| `")]
for fam in catalog:
    check(any(f"`{fam}`" in l for l in table), f"README's family table lacks {fam}")
check(len(catalog) >= 30, f"{len(catalog)} families in the catalog")

total = len(files)
print(f"corpus: {total} files: {counts['run']} run, {counts['nothing fits']} nothing fits, "
      f"{counts['refused']} refused by family")
check(counts["run"] + counts["nothing fits"] >= 0.9 * total, f"fewer than 90 % of {total} files run")
check(total >= 238, f"{total} corpus files, expected 238")
finish()
