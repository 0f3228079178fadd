// Language families: decoder LMs (and DPO), encoders (BERT heads, ESM-2, DPR), and
// encoder-decoders (T5, the Transformer). Key names follow each family's Model Zoo config.
#include <fmt/format.h>

#include "common/errors.hpp"
#include "input/family_readers.hpp"
#include "input/stack_reader.hpp"

namespace csx::model {
namespace {

bool is_one_of(const std::string& v, std::initializer_list<const char*> set) {
  for (const char* x : set)
    if (v == x) return true;
  return false;
}

// Llama-style families: no biases, RMSNorm, rotary, untied head (Model Zoo llama configs).
bool llama_like(const std::string& family) {
  return is_one_of(family, {"llama", "mistral", "mixtral", "gemma2", "LlamaModel", "MistralModel"});
}

StackDefaults decoder_defaults(const std::string& family) {
  StackDefaults d;
  if (llama_like(family)) {
    d.biases = false;
    d.layer_norm = false;
    d.position = "rotary";
  }
  if (is_one_of(family, {"falcon", "mpt"})) d.biases = false;
  if (is_one_of(family, {"gptj", "gpt_neox", "gpt-neox", "falcon"})) {
    d.parallel = true;
    d.position = "rotary";
  }
  return d;
}

void check_learned_positions(const Stack& st, ModelSpec& s, const std::string& file) {
  if (st.position != "learned" || st.tokens <= s.max_position_embeddings ||
      s.sequences_per_sample != 1)
    return;
  if (s.name == "bert/extractive_summarization") {
    // BERTSUM as the Model Zoo runs it (Releases 1.9 to 2.1 ship max_sequence_length 1532 with
    // 512 positions): its data preparation truncates each document to 512 tokens (its
    // --max_sequence_length default) and the dataloader pads every sample to
    // max_sequence_length, so the encoder runs on the whole padded length over a table of
    // max_position_embeddings rows.
    s.modelled.push_back(fmt::format(
        "sequence of {} tokens over {} position embeddings: the encoder runs on all {} (samples "
        "padded to max_sequence_length; documents truncated to 512 tokens when prepared)",
        st.tokens, s.max_position_embeddings, st.tokens));
    return;
  }
  throw InputError(fmt::format(
      "{}: sequence length {} ({}) exceeds max_position_embeddings = {} of a model with "
      "learned position embeddings",
      file, st.tokens, s.seq_len_from, s.max_position_embeddings));
}

}  // namespace

void read_decoder(const FamilyInput& in, ModelSpec& s) {
  const io::Block* m = &in.model;
  std::optional<io::Block> policy;
  std::string family = s.name;
  if (s.name == "dpo") {
    if (in.model.has_value("policy_model")) {
      policy = in.model.child("policy_model");
      m = &*policy;
      family = m->get_string_opt("name").value_or("gpt3");
    } else {
      family = in.model.get_string_opt("model_name").value_or("gpt3");
    }
  }
  Stack st = read_stack(*m, {}, decoder_defaults(family), "decoder", s);
  s.vocab_size =
      model_or_input_size(*m, in.train_data, "vocab_size", {"vocab_file"}, 1, kMaxVocab, s);
  s.max_position_embeddings = m->get_int("max_position_embeddings", 1, kMaxSequence);
  const auto seq = training_seq_len(in.train_data, "max_sequence_length", in.file, in.seq_len,
                                    s.max_position_embeddings, "max_position_embeddings");
  st.tokens = seq.value;
  s.seq_len = seq.value;
  s.seq_len_from = seq.from;
  s.share_embedding_weights = m->get_bool("share_embedding_weights", !llama_like(family));
  s.embedding_layer_norm = m->get_bool("embedding_layer_norm", false);
  s.head = HeadKind::kLanguageModel;
  check_learned_positions(st, s, in.file);
  if (s.name == "dpo") {
    // Each sample is a chosen and a rejected sequence; attention stays within each.
    s.sequences_per_sample = 2;
    st.keys_per_query = static_cast<double>(seq.value);
    st.tokens = 2 * seq.value;
    s.seq_len = st.tokens;
    bool reference_free = false;
    if (auto dpo = in.model.optional_child("dpo"))
      reference_free = dpo->get_bool("reference_free", false);
    if (!reference_free) st.forward_only_tokens = st.tokens;
    s.modelled.push_back(
        fmt::format("DPO: {} policy on chosen + rejected{}", family,
                    reference_free ? ", reference-free" : ", reference model forward"));
  }
  s.head_tokens = st.tokens;
  s.stacks = {st};
}

void read_encoder(const FamilyInput& in, ModelSpec& s) {
  const io::Block& m = in.model;
  StackKeys keys;
  keys.nonlinearity = "encoder_nonlinearity";
  StackDefaults def;
  const bool esm = s.name == "esm2" || s.name == "esm2/classification";
  if (esm) def.position = "rotary";
  if (s.name == "dpr") {
    const io::Block q = m.child("q_encoder"), ctx = m.child("ctx_encoder");
    Stack a = read_stack(q, keys, def, "question", s), b = read_stack(ctx, keys, def, "passage", s);
    s.vocab_size = q.get_int("vocab_size", 1, kMaxVocab);
    s.max_position_embeddings = q.get_int("max_position_embeddings", 1, kMaxSequence);
    const auto seq = training_seq_len(in.train_data, "max_sequence_length", in.file, in.seq_len,
                                      s.max_position_embeddings, "max_position_embeddings");
    a.tokens = b.tokens = seq.value;
    a.causal = b.causal = false;
    s.seq_len = 2 * seq.value;
    s.seq_len_from = seq.from + ", question + passage";
    s.sequences_per_sample = 2;
    s.embedding_tables = 2;
    s.embedding_layer_norm = true;
    s.segment_vocab = 2;
    s.final_norm = false;
    s.head = HeadKind::kEmbedding;
    s.modelled.push_back("question and passage encoders (one passage per question)");
    s.stacks = {a, b};
    return;
  }
  Stack st = read_stack(m, keys, def, "encoder", s);
  st.causal = false;
  s.vocab_size =
      model_or_input_size(m, in.train_data, "vocab_size", {"vocab_file"}, 1, kMaxVocab, s);
  s.max_position_embeddings = m.get_int("max_position_embeddings", 1, kMaxSequence);
  const auto seq = training_seq_len(in.train_data, "max_sequence_length", in.file, in.seq_len,
                                    s.max_position_embeddings, "max_position_embeddings");
  st.tokens = seq.value;
  s.seq_len = seq.value;
  s.seq_len_from = seq.from;
  s.share_embedding_weights = m.get_bool("share_embedding_weights", true);
  s.head_tokens = seq.value;
  s.embedding_layer_norm = m.get_bool("embedding_layer_norm", !esm);
  s.final_norm = esm && m.get_bool("use_final_layer_norm", true);  // BERT is post-norm
  s.segment_vocab = esm ? 0 : 2;
  const bool classifier = s.name == "bert/classifier" || s.name == "esm2/classification";
  if (classifier) {
    s.head = HeadKind::kClassifier;
    s.num_classes = m.get_int_opt("num_labels", 1, kMaxVocab).value_or(2);
  } else if (s.name == "bert/token_classifier") {
    s.head = HeadKind::kTokenClassifier;
    s.num_classes = m.get_int_opt("num_classes", 1, kMaxVocab).value_or(2);
  } else if (s.name == "bert/qa") {
    // BERT for SQuAD (Devlin et al. 2019, section 4.2): a start and an end logit per token.
    s.head = HeadKind::kTokenClassifier;
    s.num_classes = 2;
  } else if (s.name == "bert/extractive_summarization") {
    s.head = HeadKind::kSentenceScorer;
    s.num_classes = 1;
    s.head_tokens = in.train_data
                        ? in.train_data->get_int_opt("max_cls_tokens", 1, kMaxSequence).value_or(50)
                        : 50;
  } else {
    s.head = HeadKind::kMaskedLm;
    // NSP: BERT pretraining unless disable_nsp (ESM-2 and RoBERTa set it).
    s.num_classes = esm || m.get_bool("disable_nsp", false) ? 0 : 2;
    if (in.train_data)
      if (auto preds = in.train_data->get_int_opt("max_predictions_per_seq", 1, kMaxSequence))
        s.head_tokens = std::min(*preds, seq.value);
  }
  check_learned_positions(st, s, in.file);
  s.stacks = {st};
}

void read_encoder_decoder(const FamilyInput& in, ModelSpec& s) {
  const io::Block& m = in.model;
  StackKeys keys;
  // d_model and d_ff; the Transformer's TensorFlow files (R_1.7.0) name them hidden_size and
  // filter_size.
  keys.hidden = !m.has("d_model") && m.has("hidden_size") ? "hidden_size" : "d_model";
  keys.filter = !m.has("d_ff") && m.has("filter_size") ? "filter_size" : "d_ff";
  keys.layers = "encoder_num_hidden_layers";
  keys.nonlinearity = "encoder_nonlinearity";
  StackDefaults def;
  def.nonlinearity = "relu";
  def.biases = s.name != "t5";
  def.position = s.name == "t5" ? "relative" : "fixed";
  Stack enc = read_stack(m, keys, def, "encoder", s);
  enc.causal = false;
  Stack dec = enc;
  dec.name = "decoder";
  dec.causal = true;
  dec.num_layers =
      m.get_int_opt("decoder_num_hidden_layers", 1, kMaxLayers).value_or(enc.num_layers);
  dec.nonlinearity = m.get_string_opt("decoder_nonlinearity").value_or(enc.nonlinearity);
  // TensorFlow files (R_1.7.0) keep the vocabulary (or its file) and extra_ids in train_input.
  const bool input_vocab = !m.has_value("src_vocab_size");
  const auto extra = input_vocab
                         ? model_or_input_size_opt(m, in.train_data, "extra_ids", 0, kMaxVocab)
                         : m.get_int_opt("extra_ids", 0, kMaxVocab);
  s.vocab_size = model_or_input_size(m, in.train_data, "src_vocab_size",
                                     {"src_vocab_file", "vocab_file"}, 1, kMaxVocab, s) +
                 extra.value_or(0);
  const auto src_mpe = m.get_int_opt("src_max_position_embeddings", 1, kMaxSequence).value_or(512);
  const auto tgt_mpe =
      m.get_int_opt("tgt_max_position_embeddings", 1, kMaxSequence).value_or(src_mpe);
  s.max_position_embeddings = std::max(src_mpe, tgt_mpe);
  const auto src = training_seq_len(in.train_data, "src_max_sequence_length", in.file, in.seq_len,
                                    src_mpe, "src_max_position_embeddings");
  const auto tgt = training_seq_len(in.train_data, "tgt_max_sequence_length", in.file, std::nullopt,
                                    tgt_mpe, "tgt_max_position_embeddings");
  enc.tokens = src.value;
  dec.tokens = tgt.value;
  dec.cross_attention_tokens = src.value;
  s.seq_len = src.value + tgt.value;
  s.seq_len_from =
      fmt::format("{} source ({}) + {} target ({})", src.value, src.from, tgt.value, tgt.from);
  s.share_embedding_weights = m.get_bool("share_embedding_weights", true);
  s.embedding_tables = m.get_bool("share_encoder_decoder_embedding", true) ? 1 : 2;
  s.head = HeadKind::kLanguageModel;
  s.head_tokens = tgt.value;
  s.modelled.push_back("decoder cross-attention to the encoder output");
  s.stacks = {enc, dec};
}

}  // namespace csx::model
