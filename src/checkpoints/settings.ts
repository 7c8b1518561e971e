/** config.json's `checkpoints` section over the defaults. */
import type { CheckpointsSettings } from "../config/schema.ts"
import { defaultCheckpointSettings, type CheckpointSettings } from "./store.ts"

export const checkpointSettingsFrom = (configured: CheckpointsSettings | undefined): CheckpointSettings => ({
  maxFileBytes: configured?.maxFileBytes ?? defaultCheckpointSettings.maxFileBytes,
  maxBytes: configured?.maxBytes ?? defaultCheckpointSettings.maxBytes,
  keepDays: configured?.keepDays ?? defaultCheckpointSettings.keepDays
})
