-- mcp-memory-service (sqlite_vec backend) database, v8-style schema, as its storage
-- creates it; tests build tests/.../sqlite_vec.db from this script.
CREATE TABLE memories (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    content_hash TEXT UNIQUE NOT NULL,
    content TEXT NOT NULL,
    tags TEXT,
    memory_type TEXT,
    metadata TEXT,
    created_at REAL,
    updated_at REAL,
    created_at_iso TEXT,
    updated_at_iso TEXT,
    deleted_at REAL DEFAULT NULL
);
CREATE INDEX idx_content_hash ON memories(content_hash);
CREATE INDEX idx_created_at ON memories(created_at);
CREATE INDEX idx_memory_type ON memories(memory_type);
CREATE INDEX idx_deleted_at ON memories(deleted_at);
CREATE TABLE metadata (key TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO metadata VALUES ('distance_metric', 'cosine');
INSERT INTO metadata VALUES ('embedding_model', 'all-MiniLM-L6-v2');
CREATE TABLE memory_graph (
    source_hash TEXT NOT NULL,
    target_hash TEXT NOT NULL,
    similarity REAL NOT NULL,
    connection_types TEXT NOT NULL DEFAULT '[]',
    metadata TEXT,
    created_at REAL NOT NULL,
    relationship_type TEXT DEFAULT 'related',
    PRIMARY KEY (source_hash, target_hash)
);

INSERT INTO memories (content_hash, content, tags, memory_type, metadata, created_at, updated_at, created_at_iso, updated_at_iso, deleted_at) VALUES (
    '450c4a4c40f50a795586c0f84e5417b81a185fa7cc1d9a6112bc13aec237ce39',
    'Use uv for Python installs; pip is only the fallback inside Docker images.',
    'tooling,python,package manager', 'decision', '{"source": "claude-code", "project": "atlas", "access_count": 4}',
    1748852142.118034, 1748938542.5, '2025-06-02T08:15:42.118034+00:00', '2025-06-03T08:15:42.500000+00:00', NULL);
INSERT INTO memories (content_hash, content, tags, memory_type, metadata, created_at, updated_at, created_at_iso, updated_at_iso, deleted_at) VALUES (
    'a7ecc0f8c1db3798fb85823a3492c5a5200037de10f46d75ba539bf66751290e',
    'The staging database is restored from the nightly snapshot at 02:00 UTC.',
    'ops, database ,backups', 'note', '{"quality_score": 0.82}',
    1748865600.0, 1748865600.0, '2025-06-02T12:00:00+00:00', '2025-06-02T12:00:00+00:00', NULL);
INSERT INTO memories (content_hash, content, tags, memory_type, metadata, created_at, updated_at, created_at_iso, updated_at_iso, deleted_at) VALUES (
    '10f2394b54525022d79a86b283ad9056a492635da81d05f2f9371a445bf98fd5',
    'CI fails on macOS runners because the Xcode 16 image lacks libpq.',
    'ci,macos', 'observation', '{}',
    1749027600.25, 1749027600.25, '2025-06-04T09:00:00.250000+00:00', '2025-06-04T09:00:00.250000+00:00', NULL);
INSERT INTO memories (content_hash, content, tags, memory_type, metadata, created_at, updated_at, created_at_iso, updated_at_iso, deleted_at) VALUES (
    '6968aceb4e9b867aa86f47a4ea3c95b44c3cd464c67d5acdc3f7f00d9bf29bb5',
    'Pinning libpq to 16 in the Brewfile fixes the macOS CI failure.',
    'ci,macos,fix', 'learning', '{"confidence": "high"}',
    1749031200.0, 1749034800.0, '2025-06-04T10:00:00+00:00', '2025-06-04T11:00:00+00:00', NULL);
INSERT INTO memories (content_hash, content, tags, memory_type, metadata, created_at, updated_at, created_at_iso, updated_at_iso, deleted_at) VALUES (
    '9f7b710c2f195b1e2f9f72dbac972061d9279da99b7c4f0b19cc1f23e6ddbcc0',
    'Deploys happen on Fridays after the release sync.',
    'process', 'decision', '{"superseded_reason": "moved to Tuesdays"}',
    1746090000.0, 1746090000.0, '2025-05-01T09:00:00+00:00', '2025-05-01T09:00:00+00:00', 1749200000.0);
INSERT INTO memories (content_hash, content, tags, memory_type, metadata, created_at, updated_at, created_at_iso, updated_at_iso, deleted_at) VALUES (
    '8855c6119660c614d285554e51769066e94fcb75ff215ccc2fa6b4838b18756b',
    '  
',
    '', 'note', '{}',
    1749100000.0, 1749100000.0, '2025-06-05T05:06:40+00:00', '2025-06-05T05:06:40+00:00', NULL);
INSERT INTO memories (content_hash, content, tags, memory_type, metadata, created_at, updated_at, created_at_iso, updated_at_iso, deleted_at) VALUES (
    'a03c140e3ef5cf2c6211f00d95ee7cb3fa14bd2820cf10256f1bc156cde0c75d',
    'Use uv for Python installs;  pip is only the fallback inside Docker images.
',
    'tooling', 'decision', '{"source": "cursor"}',
    1749110000.0, 1749110000.0, '2025-06-05T07:53:20+00:00', '2025-06-05T07:53:20+00:00', NULL);
INSERT INTO memories (content_hash, content, tags, memory_type, metadata, created_at, updated_at, created_at_iso, updated_at_iso, deleted_at) VALUES (
    '538f2467abba008f00c956a9f0320ea7a857657dd21273f641a6a9e098b091a1',
    'Ask before force-pushing to shared branches.',
    NULL, NULL, NULL,
    1749120000.0, NULL, '2025-06-05T10:40:00+00:00', NULL, NULL);

INSERT INTO memory_graph VALUES (
    '6968aceb4e9b867aa86f47a4ea3c95b44c3cd464c67d5acdc3f7f00d9bf29bb5',
    '10f2394b54525022d79a86b283ad9056a492635da81d05f2f9371a445bf98fd5',
    0.91, '["semantic", "temporal"]', '{"discovery_method": "consolidation"}', 1749200100.0, 'fixes');
INSERT INTO memory_graph VALUES (
    '450c4a4c40f50a795586c0f84e5417b81a185fa7cc1d9a6112bc13aec237ce39',
    '538f2467abba008f00c956a9f0320ea7a857657dd21273f641a6a9e098b091a1',
    0.62, '["semantic"]', NULL, 1749200200.0, 'related');
INSERT INTO memory_graph VALUES (
    '538f2467abba008f00c956a9f0320ea7a857657dd21273f641a6a9e098b091a1',
    '450c4a4c40f50a795586c0f84e5417b81a185fa7cc1d9a6112bc13aec237ce39',
    0.62, '["semantic"]', NULL, 1749200200.0, 'related');
INSERT INTO memory_graph VALUES (
    'a7ecc0f8c1db3798fb85823a3492c5a5200037de10f46d75ba539bf66751290e',
    '0adfa7e0ebd2730b62c8b3d99cc597a34cb4400b8b804cdb8fd3996e8be5becc',
    0.7, '["temporal"]', '{}', 1749200300.0, 'causes');

-- The sqlite-vec embedding table, registered the way the extension does; memlens must never
-- touch it (it cannot be read without the vec0 module).
PRAGMA writable_schema = ON;
INSERT INTO sqlite_master (type, name, tbl_name, rootpage, sql) VALUES ('table',
    'memory_embeddings', 'memory_embeddings', 0, 'CREATE VIRTUAL TABLE memory_embeddings USING
    vec0(content_embedding FLOAT[384] distance_metric=cosine)');
PRAGMA writable_schema = OFF;
