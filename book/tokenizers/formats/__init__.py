"""The files tokenizers are stored in: the book's own BPE file, and the formats of other
libraries it reads and writes (GPT-2's, SentencePiece's, Hugging Face's tokenizer.json,
llama.cpp's GGUF).
"""
