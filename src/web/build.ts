// `npm run build` runs this after tsc: the explorer page goes to dist/web/public.
import { buildExplorer, builtPageDir } from './bundle.js';

await buildExplorer(builtPageDir());
