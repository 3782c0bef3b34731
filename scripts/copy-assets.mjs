// Copies the Lua scripts beside the compiled store: dist/ must be runnable without src/.
import { cpSync } from 'node:fs';

cpSync('src/store/redis/lua', 'dist/store/redis/lua', { recursive: true });
