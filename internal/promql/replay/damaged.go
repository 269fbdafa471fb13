package replay

import (
	"context"
	"errors"
	"fmt"

	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/storage"
	"github.com/prometheus/prometheus/tsdb/chunkenc"
)

// DamagedError is a block that fails to read while a rule reads it (a chunk file cut short, a
// checksum that does not match): the data's fault, not the rule's.
type DamagedError struct {
	// Block is the block's directory; Data its TSDB directory.
	Block, Data string
	Err         error
}

func (e *DamagedError) Error() string {
	return fmt.Sprintf("%s: the block is damaged (%v): a copy cut short or a bad disk; copy the block again, or move it out of %s to replay without it", e.Block, e.Err, e.Data)
}

func (e *DamagedError) Unwrap() error { return e.Err }

// damaged names the block an error from reading it came from. Prometheus wraps a chunk's error
// with the chunk's reference and a block ID it does not know (all zeros): the cause alone is kept.
func damaged(block, data string, err error) error {
	if err == nil || errors.As(err, new(*DamagedError)) {
		return err
	}
	if cause := errors.Unwrap(err); cause != nil {
		err = cause
	}
	return &DamagedError{Block: block, Data: data, Err: err}
}

// blockQuerier is a block's querier whose series name the block when they fail to read.
type blockQuerier struct {
	storage.Querier
	block, data string
}

func (q blockQuerier) Select(ctx context.Context, sortSeries bool, hints *storage.SelectHints, matchers ...*labels.Matcher) storage.SeriesSet {
	return blockSeriesSet{q.Querier.Select(ctx, sortSeries, hints, matchers...), q}
}

type blockSeriesSet struct {
	storage.SeriesSet
	q blockQuerier
}

func (s blockSeriesSet) At() storage.Series { return blockSeries{s.SeriesSet.At(), s.q} }
func (s blockSeriesSet) Err() error         { return damaged(s.q.block, s.q.data, s.SeriesSet.Err()) }

type blockSeries struct {
	storage.Series
	q blockQuerier
}

func (s blockSeries) Iterator(reuse chunkenc.Iterator) chunkenc.Iterator {
	if it, ok := reuse.(*blockIterator); ok {
		reuse = it.Iterator
	}
	return &blockIterator{s.Series.Iterator(reuse), s.q}
}

type blockIterator struct {
	chunkenc.Iterator
	q blockQuerier
}

func (it *blockIterator) Err() error { return damaged(it.q.block, it.q.data, it.Iterator.Err()) }
