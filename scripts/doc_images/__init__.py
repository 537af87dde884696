"""The pieces of scripts/gen_doc_images.py: SVG drawing, the example, and one module per picture."""
