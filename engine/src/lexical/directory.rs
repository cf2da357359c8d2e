//! The index folder as tantivy sees it, readable where this process may not write.

use std::path::Path;

use tantivy::directory::error::LockError;

/// The index folder, readable even where this process may not write: readers take tantivy's
/// meta lock while they open segments, which needs a lock file; in a read-only vault (a
/// read-only mount, another user's vault) that lock is skipped, since no writer can work there
/// through this process either. Writer locks still fail, so writes report the problem.
#[derive(Debug, Clone)]
pub(super) struct ReadOnlyTolerant(pub(super) tantivy::directory::MmapDirectory);

impl tantivy::Directory for ReadOnlyTolerant {
    fn get_file_handle(
        &self,
        path: &Path,
    ) -> std::result::Result<
        std::sync::Arc<dyn tantivy::directory::FileHandle>,
        tantivy::directory::error::OpenReadError,
    > {
        self.0.get_file_handle(path)
    }
    fn delete(
        &self,
        path: &Path,
    ) -> std::result::Result<(), tantivy::directory::error::DeleteError> {
        self.0.delete(path)
    }
    fn exists(
        &self,
        path: &Path,
    ) -> std::result::Result<bool, tantivy::directory::error::OpenReadError> {
        self.0.exists(path)
    }
    fn open_write(
        &self,
        path: &Path,
    ) -> std::result::Result<tantivy::directory::WritePtr, tantivy::directory::error::OpenWriteError>
    {
        self.0.open_write(path)
    }
    fn atomic_read(
        &self,
        path: &Path,
    ) -> std::result::Result<Vec<u8>, tantivy::directory::error::OpenReadError> {
        self.0.atomic_read(path)
    }
    fn atomic_write(&self, path: &Path, data: &[u8]) -> std::io::Result<()> {
        self.0.atomic_write(path, data)
    }
    fn sync_directory(&self) -> std::io::Result<()> {
        self.0.sync_directory()
    }
    fn acquire_lock(
        &self,
        lock: &tantivy::directory::Lock,
    ) -> std::result::Result<tantivy::directory::DirectoryLock, LockError> {
        match self.0.acquire_lock(lock) {
            Err(LockError::IoError(e))
                if lock.filepath == tantivy::directory::META_LOCK.filepath
                    && matches!(
                        e.kind(),
                        std::io::ErrorKind::PermissionDenied
                            | std::io::ErrorKind::ReadOnlyFilesystem
                    ) =>
            {
                Ok(tantivy::directory::DirectoryLock::from(Box::new(())))
            }
            other => other,
        }
    }
    fn watch(
        &self,
        callback: tantivy::directory::WatchCallback,
    ) -> tantivy::Result<tantivy::directory::WatchHandle> {
        self.0.watch(callback)
    }
}
