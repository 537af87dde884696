import sys
print("python sees", len(sys.argv) - 1, "args")
sys.exit(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
