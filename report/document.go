package report

// Document is a report before rendering: renderers for Markdown and HTML
// walk the same blocks, so both say the same thing.
type Document struct {
	Title    string
	Subtitle string
	// Facts are the key answers shown first.
	Facts    []Fact
	Sections []Section
}

// Fact is one key answer of the summary.
type Fact struct {
	Label, Value, Detail string
	// Warn marks a fact that is a gap rather than an answer.
	Warn bool
}

// Section is a top-level part of the report, with an anchor ID.
type Section struct {
	ID, Title string
	Blocks    []Block
}

// Block is one element of a section: *Heading, *Para, *List, *Table, *Figure.
type Block interface{ block() }

// Heading is a sub-heading within a section.
type Heading struct{ Text string }

// Para is a paragraph. Text may use `code` and **bold** inline markup,
// which both renderers understand.
type Para struct {
	Text string
	// Note renders the paragraph as a side remark (smaller, muted).
	Note bool
}

// List is a bullet list; items use the same inline markup as Para.
type List struct {
	Items []string
}

// Table is a table with a header row. Right marks the columns to align
// right (numbers); Caption, if set, is shown above it.
type Table struct {
	Caption string
	Head    []string
	Rows    [][]string
	Right   []bool
	// Legend says what the columns mean and their units, printed under
	// the table; every table of a report has one (a test holds that).
	Legend string
}

// Figure is a chart: SVG for HTML (inline) and a file of Name + ".svg" that
// the Markdown links to.
type Figure struct {
	Name, Title, Caption string
	SVG                  []byte
}

func (*Heading) block() {}
func (*Para) block()    {}
func (*List) block()    {}
func (*Table) block()   {}
func (*Figure) block()  {}

// Figures lists the document's figures in order.
func (d *Document) Figures() []*Figure {
	var out []*Figure
	for _, s := range d.Sections {
		for _, b := range s.Blocks {
			if f, ok := b.(*Figure); ok {
				out = append(out, f)
			}
		}
	}
	return out
}

// FigureFile is the file a figure is written to beside the report.
func FigureFile(f *Figure) string { return "report-" + f.Name + ".svg" }
