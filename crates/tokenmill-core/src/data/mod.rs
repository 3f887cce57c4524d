pub mod shards;
