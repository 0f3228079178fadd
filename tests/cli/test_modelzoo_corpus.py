"""Every model config of Model Zoo Releases 2.3.0 and 2.10.0 (../shared/modelzoo-corpus) and
R_1.7.0 (../shared/modelzoo-r1.7.0, the TensorFlow and PyTorch trees), unchanged, through
`describe --json` and `run --num-csx 1 --platform cs2`: each runs (exit 0, or 1 when nothing
fits) or is refused for its family with the reason the family table of
docs/modelzoo.md#model-zoo-files gives. No file is refused for a key, a missing key or a family that "cannot be told", none is read as another
family, and the parameter count of every named size agrees with its published figure within 2 %.
R_1.7.0's TensorFlow files agree with the PyTorch files of the same shape, read their batch size
per system, and follow pretrain_params_path. Without the corpora's folder (SHARED below) the
test reports itself skipped (exit 77, ctest's SKIP_RETURN_CODE)."""
import csv
import json
import os
import re
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

from clitest import SANITIZED, check, finish, run

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
SHARED = os.path.normpath(os.path.join(ROOT, "..", "shared"))
CORPUS = os.path.join(SHARED, "modelzoo-corpus")  # Release_2.3.0/, Release_2.10.0/
R17 = os.path.join(SHARED, "modelzoo-r1.7.0")  # R_1.7.0: transformers/{tf,pytorch}/..., vision/...
SKIP = 77  # tests/CMakeLists.txt: SKIP_RETURN_CODE

# Families refused on purpose, with the fragment of their reason (docs/modelzoo.md#model-zoo-files).
REFUSED = {
    "layers_api_demo": "demonstration of the Model Zoo layers API",
    "linformer": "projects keys and values along the sequence",
    "unet": "convolutional encoder-decoder",
}
BATCH_NORM = "microbatching is not compatible with batch normalization"

# Files whose family is not their folder's: gpt_neox configs live in the gptj folder, the DINOv2
# linear-probe config is a plain ViT classifier, ESM-2 classifiers sit under esm2/classification.
FAMILY_EXCEPTIONS = {
    "gptj/configs/params_gpt_neox": "gpt_neox",
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
    ("R_1.7.0/transformers/tf/bert/configs/params_bert_base_msl128.yaml", 110e6,
     "Devlin et al. 2019, BERT, section 3 (110M)"),
    ("R_1.7.0/transformers/tf/bert/configs/params_bert_large_msl512.yaml", 340e6, "Devlin et al. 2019 (340M)"),
    ("R_1.7.0/transformers/tf/gpt2/configs/params_gpt2_xlarge.yaml", 1542e6,
     "Radford et al. 2019, GPT-2, table 2 (1542M)"),
    ("R_1.7.0/transformers/tf/gpt3/configs/params_gpt3_xl.yaml", 1.3e9, "Brown et al. 2020, GPT-3, table 2.1 (1.3B)"),
    ("R_1.7.0/transformers/tf/gpt3/configs/params_gpt3_13b.yaml", 13.0e9, "Brown et al. 2020, table 2.1 (13.0B)"),
    ("R_1.7.0/transformers/tf/gptj/configs/params_gptj_6B.yaml", 6053381344, "EleutherAI GPT-J-6B model card"),
    ("R_1.7.0/transformers/tf/gptj/configs/params_gpt_neox_20B.yaml", 20554567680,
     "Black et al. 2022, GPT-NeoX-20B (model card: 20,554,567,680)"),
    ("R_1.7.0/transformers/tf/t5/configs/params_base.yaml", 220e6, "Raffel et al. 2020, section 3.7 (220M)"),
]
# R_1.7.0's TensorFlow files against the PyTorch files of the same shape in the same release
# (the TF ones keep vocab_size under train_input, name only a vocabulary file, or extend a
# pretraining config): equal parameter counts.
SAME_SHAPE = [
    ("tf/bert/configs/params_bert_base_msl128.yaml", "pytorch/bert/configs/bert_base_MSL128.yaml"),
    ("tf/gpt2/configs/params_gpt2_small.yaml", "pytorch/gpt2/configs/params_gpt2_small.yaml"),
    ("tf/gpt3/configs/params_gpt3_xl.yaml", "pytorch/gpt3/configs/params_gpt3_xl.yaml"),
    ("tf/t5/configs/params_base.yaml", "pytorch/t5/configs/t5_base.yaml"),
    ("tf/transformer/configs/params_base.yaml", "pytorch/transformer/configs/transformer_base.yaml"),
    ("tf/bert/fine_tuning/qa/configs/params_bert_base_squad.yaml",
     "pytorch/bert/fine_tuning/qa/configs/bert_base_squad.yaml"),
    ("tf/bert/fine_tuning/classifier/configs/params_bert_base_sst2.yaml",
     "pytorch/bert/fine_tuning/classifier/configs/bert_base_classifier_sst2.yaml"),
    ("tf/bert/fine_tuning/extractive_summarization/configs/params_bertsum_base.yaml",
     "pytorch/bert/fine_tuning/extractive_summarization/configs/bert_base_summarization.yaml"),
    ("tf/bert/fine_tuning/token_classifier/configs/params_bert_base_ner_bc5cdr-chem.yaml",
     "pytorch/bert/fine_tuning/token_classifier/configs/bert_base_ner_bc5cdr_chem.yaml"),
]
# Named sizes left out, and why: ESM-2 '35M' and '3B' are checkpoint names of 33.5M and 2.84B
# models (12 and 36 layers of 12 h^2); Falcon '40B' has 41.3B parameters in its published
# config, the same as the Model Zoo's.


def release_of(rel):
    return rel.split("/")[0]


def family_of_folder(rel):
    """The family the Model Zoo's layout names: nlp/<family>/configs/ (2.x; bert/classifier/configs
    is bert/classifier), or <domain>/<framework>/<family>/configs/ and fc_mnist/<framework>/configs/
    (R_1.7.0), where <family>/fine_tuning/<head>/ is the head of BERT (bert/qa) and a fine-tuned
    GPT-J keeps its family."""
    parts = rel.split("/")
    i = parts.index("configs") if "configs" in parts else len(parts) - 1
    if parts[0] != "R_1.7.0":
        return "/".join(parts[2:i]).replace("/continuous_pretraining", "")
    p = parts[1:i]
    p = p[2:] if p[0] in ("transformers", "vision") else p[:1]
    if len(p) == 3 and p[1] == "fine_tuning":
        return f"{p[0]}/{p[2]}" if p[0] == "bert" else p[0]
    return "/".join(p)


def one(item):
    rel, path = item
    d = run("describe", path, "--json")
    r = run("run", path, "--num-csx", 1, "--platform", "cs2", "--quiet")
    return rel, d, r


if not os.path.isdir(SHARED):
    print(f"SKIP: no {SHARED} (the Model Zoo corpora): nothing to check")
    sys.exit(SKIP)
for folder in (CORPUS, R17):
    check(os.path.isdir(folder), f"{folder}: missing")

def yaml_files(folder, prefix):
    return sorted((os.path.join(prefix, os.path.relpath(os.path.join(dp, f), folder)), os.path.join(dp, f))
                  for dp, _, fs in os.walk(folder) for f in fs if f.endswith(".yaml"))


files = yaml_files(CORPUS, "") + yaml_files(R17, "R_1.7.0")
files = [(rel.lstrip("/"), path) for rel, path in files]
corpus_size = len(files)
if SANITIZED:
    # The sanitizer pass (tests/CMakeLists.txt) reads every third file and those the figures below
    # need (SAME_SHAPE holds the BERTSUM base file): the whole corpus under AddressSanitizer takes
    # five minutes of CI's twenty.
    needed = {rel for rel, _, _ in PUBLISHED} | {f"R_1.7.0/transformers/{n}" for pair in SAME_SHAPE for n in pair}
    files = [f for i, f in enumerate(files) if i % 3 == 0 or f[0] in needed]
with ThreadPoolExecutor(max_workers=2) as pool:
    results = list(pool.map(one, files))

counts = {}  # release -> {"run", "nothing fits", "refused": {family: n}}
params = {}
for rel, d, r in results:
    stderr = d.stderr + r.stderr
    release = release_of(rel)
    c = counts.setdefault(release, {"run": 0, "nothing fits": 0, "refused": {}})
    check("did you mean" not in stderr and "by the Model Zoo releases csxsim knows" not in stderr,
          f"{rel}: a key warning or typo message: {stderr}")
    check("required key is missing" not in stderr and "cannot be told" not in stderr,
          f"{rel}: refused for a missing key or an untold family: {stderr}")
    check("Traceback" not in stderr and "terminate called" not in stderr, f"{rel}: crash")
    folder = family_of_folder(rel)
    expected = next((f for p, f in FAMILY_EXCEPTIONS.items() if p in rel), folder)
    if d.returncode == 2 or r.returncode == 2:
        why = REFUSED.get(expected)
        check(why is not None and f"model family '{expected}' is not modelled" in stderr and why in stderr,
              f"{rel}: refused without its family-level reason ({expected}): {stderr}")
        text = open(dict(files)[rel]).read()
        if re.search(r"norm_layer:\s*\"?batchnorm", text):
            check(BATCH_NORM in stderr, f"{rel}: a batch-norm network refused without '{BATCH_NORM}': {stderr}")
        c["refused"][expected] = c["refused"].get(expected, 0) + 1
        continue
    check(d.returncode == 0, f"{rel}: describe exit {d.returncode}: {d.stderr}")
    check(r.returncode in (0, 1), f"{rel}: run exit {r.returncode}: {r.stderr}")
    c["run" if r.returncode == 0 else "nothing fits"] += 1
    j = json.loads(d.stdout)
    params[rel] = j["parameters"]
    check(j["family"] == expected, f"{rel}: read as family {j['family']!r}, expected {expected!r}")
    check(j["seq_len"] > 0 and j["seq_len_from"], f"{rel}: no sequence length or its source")
    check(isinstance(j.get("ignored_keys"), list) and j.get("stacks") is not None,
          f"{rel}: describe lacks ignored_keys or stacks")
    if "pretrain_params_path" in open(dict(files)[rel]).read():
        check(any("pretraining config" in m for m in j["modelled"]), f"{rel}: pretrain_params_path not followed")

for rel, figure, source in PUBLISHED:
    got = params.get(rel)
    check(got is not None, f"{rel}: not counted")
    if got is not None:
        err = abs(got - figure) / figure
        check(err <= 0.02, f"{rel}: {got:,} parameters vs {figure:,.0f} published ({source}): {err:.1%}")

for tf, pt in SAME_SHAPE:
    a, b = params.get(f"R_1.7.0/transformers/{tf}"), params.get(f"R_1.7.0/transformers/{pt}")
    check(a is not None and a == b, f"{tf}: {a} parameters, {pt}: {b}")

with tempfile.TemporaryDirectory() as tmp:
    # The TensorFlow batch_size is per system: the GPT-3 XL file says "global batch size with
    # 8 CS-2s: 66 x 8 = 528" beside batch_size: 66.
    out = os.path.join(tmp, "xl.csv")
    r = run("run", os.path.join(R17, "transformers/tf/gpt3/configs/params_gpt3_xl.yaml"), "--num-csx", 8,
            "--platform", "cs2", "--quiet", "--csv", out)
    check(r.returncode == 0, f"TF GPT-3 XL on 8 systems: exit {r.returncode}: {r.stderr}")
    check("the global batch is 66 x num_csx" in r.stderr, f"per-system batch not stated: {r.stderr}")
    if r.returncode == 0:
        rows = list(csv.DictReader(open(out)))
        check(all(row["batch_size"] == "528" and row["per_system_batch_size"] == "66" for row in rows),
              f"TF GPT-3 XL on 8 systems: batch {[row['batch_size'] for row in rows]}, expected 528 = 66 x 8")
    # BERTSUM as Releases 1.9 to 2.1 ship it: max_sequence_length 1532 over 512 positions. The
    # encoder runs on all 1532 padded tokens; the table keeps 512 rows (same parameters).
    src = os.path.join(R17, "transformers/pytorch/bert/fine_tuning/extractive_summarization/configs/"
                       "bert_base_summarization.yaml")
    text = open(src).read()
    check(text.count("max_sequence_length: 512") == 2, "BERTSUM file changed")
    long = os.path.join(tmp, "bert", "extractive_summarization", "configs", "bert_base_summarization_msl1532.yaml")
    os.makedirs(os.path.dirname(long))
    open(long, "w").write(text.replace("max_sequence_length: 512", "max_sequence_length: 1532"))
    d = run("describe", long, "--json")
    check(d.returncode == 0, f"BERTSUM 1532: describe exit {d.returncode}: {d.stderr}")
    if d.returncode == 0:
        j = json.loads(d.stdout)
        base = params.get("R_1.7.0/transformers/pytorch/bert/fine_tuning/extractive_summarization/configs/"
                          "bert_base_summarization.yaml")
        check(j["seq_len"] == 1532 and j["parameters"] == base,
              f"BERTSUM 1532: seq_len {j['seq_len']}, {j['parameters']} parameters (512 tokens: {base})")
    r = run("run", long, "--num-csx", 1, "--platform", "cs2", "--quiet")
    check(r.returncode in (0, 1), f"BERTSUM 1532: run exit {r.returncode}: {r.stderr}")

# The family table of docs/modelzoo.md names every family of the catalog.
catalog = [f["name"] for f in json.load(open(os.path.join(ROOT, "sim/input/modelzoo.json")))["families"]]
page = open(os.path.join(ROOT, "docs", "modelzoo.md")).read()
page = page[page.index("\n## Model Zoo files\n"):]
table = [l for l in page.splitlines() if l.startswith("| `")]
for fam in catalog:
    check(any(f"`{fam}`" in l for l in table), f"docs/modelzoo.md's family table lacks {fam}")
check(len(catalog) >= 30, f"{len(catalog)} families in the catalog")

total = len(files)
ran = sum(c["run"] + c["nothing fits"] for c in counts.values())
for release, c in sorted(counts.items()):
    refused = ", ".join(f"{f} {n}" for f, n in sorted(c["refused"].items())) or "none"
    n = c["run"] + c["nothing fits"] + sum(c["refused"].values())
    print(f"{release}: {n} files: {c['run']} run, {c['nothing fits']} nothing fits, "
          f"{sum(c['refused'].values())} refused by family ({refused})")
print(f"corpus: {total} files, {ran} run ({ran / total:.1%})")
check(ran >= 0.95 * total, f"fewer than 95 % of {total} files run")
check(corpus_size >= 323, f"{corpus_size} corpus files, expected 323 (238 + 85)")
finish()
