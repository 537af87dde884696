// vsce needs a LICENSE file next to package.json: copy the repository's (GPL-3.0-or-later).
import { copyFileSync } from "node:fs";

const here = new URL("..", import.meta.url);
copyFileSync(new URL("../LICENSE", here), new URL("LICENSE", here));
