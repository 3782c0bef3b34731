// Copies the Lua scripts beside the compiled store, and the sidecar's .proto files beside it: dist/
// must be runnable without src/.
import { cpSync } from 'node:fs';

cpSync('src/store/redis/lua', 'dist/store/redis/lua', { recursive: true });
cpSync('src/sidecar/proto', 'dist/sidecar/proto', { recursive: true });
