# Writes Ruby 3.1's reference as RDoc's Darkfish HTML, from the ri store Debian ships (the eval's ruby corpus).
#
# ruby3.1-doc (bookworm) holds no HTML: only the ri store under usr/share/ri/3.1.0/system (RDoc 6.4's
# marshalled classes, methods and pages, 11,771 files). This writes that store out with the Darkfish generator
# of the same Ruby's RDoc: what `ri --server` renders page by page (RDoc::Servlet#generator_for), to files, as
# `rdoc` would. The store keeps no method source, so no "click to toggle source" code is shown.
#
# It also writes classes.tsv beside the pages: each class or module page and the source files its comment
# comes from (the corpus reads the core's: those of the interpreter's own top-level sources, array.c, kernel.rb).
#
#   ruby3.1 tests/eval/ruby-darkfish.rb RI_DIR OUT_DIR
require 'rdoc'
require 'fileutils'

# RDoc 6.4 fails on a method that aliases an attribute (Net::HTTP#proxyaddr and kin: `undefined method
# _call_seq for RDoc::Attr`); an attribute has no call-seq of its own, so the alias shows its name and
# arguments, as in later RDoc.
class RDoc::Attr
  def _call_seq = nil
end

ri_dir, out = ARGV
abort 'usage: ruby-darkfish.rb RI_DIR OUT_DIR' unless ri_dir && out && File.directory?(ri_dir)

store = RDoc::Store.new ri_dir, :system
store.load_all

options = RDoc::Options.new
options.op_dir = File.expand_path(out)
options.main_page = store.main
options.title = store.title || 'Ruby 3.1 documentation'
options.generator = RDoc::Generator::Darkfish
options.template_dir = options.template_dir_for 'darkfish'
FileUtils.mkdir_p options.op_dir

generator = RDoc::Generator::Darkfish.new store, options
rdoc = RDoc::RDoc.new
rdoc.store = store
rdoc.generator = generator
rdoc.options = options
Dir.chdir(options.op_dir) { generator.generate }

File.open(File.join(options.op_dir, 'classes.tsv'), 'w') do |f|
  store.all_classes_and_modules.sort_by(&:full_name).each do |m|
    cl = m.comment_location
    files = (cl.respond_to?(:parts) ? cl.parts.map(&:file) : []).compact.uniq
    f.puts [m.path, m.full_name, files.join(',')].join("\t")
  end
end
