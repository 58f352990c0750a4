"""librillet, the C kernel library, and its cffi binding."""
