import { registerMigration } from '../../db/migrations.js';

/** One epoch of an image model's training curve, as streamed by the engine. */
export interface ImageEpochTable {
  id: string;
  organisation_id: string;
  project_id: string;
  model_key: string;
  run_key: string;
  epoch: number;
  train_loss: number | null;
  train_accuracy: number | null;
  val_loss: number | null;
  val_accuracy: number | null;
  learning_rate: number | null;
  created_at: string;
}

declare module '../../db/schema.js' {
  interface Database {
    image_epochs: ImageEpochTable;
  }
}

registerMigration('0105_images', {
  async up(db) {
    await db.schema
      .createTable('image_epochs')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('organisation_id', 'text', (c) => c.notNull())
      .addColumn('project_id', 'text', (c) => c.notNull()) // no foreign key: this migration sorts before 0400_training
      .addColumn('model_key', 'text', (c) => c.notNull())
      .addColumn('run_key', 'text', (c) => c.notNull())
      .addColumn('epoch', 'integer', (c) => c.notNull())
      .addColumn('train_loss', 'double precision')
      .addColumn('train_accuracy', 'double precision')
      .addColumn('val_loss', 'double precision')
      .addColumn('val_accuracy', 'double precision')
      .addColumn('learning_rate', 'double precision')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('image_epochs_project').on('image_epochs').columns(['organisation_id', 'project_id', 'model_key']).execute();
  },
});
