//! A page's window on an ordered list: the entries it skips and the entries it shows.

/// Which entries of a filtered, ordered list a page shows.
#[derive(Clone, Copy, Debug)]
pub struct Window {
    pub skip: usize,
    pub take: usize,
}

impl Window {
    /// How many leading entries of the list this page needs, wherever the list ends.
    pub fn end(&self) -> usize {
        self.skip.saturating_add(self.take)
    }

    /// How many leading entries of a list of `total` this page needs: none past the end.
    pub fn reach(&self, total: usize) -> usize {
        match self.skip >= total {
            true => 0,
            false => self.skip.saturating_add(self.take).min(total),
        }
    }

    /// The entries of `items` (the whole list, in order) this page shows.
    pub(crate) fn slice<'a, T>(&self, items: &'a [T]) -> &'a [T] {
        let start = self.skip.min(items.len());
        let end = start.saturating_add(self.take).min(items.len());
        &items[start..end]
    }
}
