import { defaultCheckpointSettings, type CheckpointSettings } from "../src/checkpoints/store.ts"
import type { Config } from "../src/config/schema.ts"

/** config.json's `checkpoints` over the defaults (docs/checkpoints.md). */
export const checkpointSettings = (_config: Config): CheckpointSettings => defaultCheckpointSettings
