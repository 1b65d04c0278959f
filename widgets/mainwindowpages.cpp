// SPDX-License-Identifier: MIT
// MainWindow's pages found by index or by the section they show, and what the
// console (its menus, its tests) asks of a section's page.
#include "mainwindow.h"

#include "pagelist.h"
#include "sectionpage.h"

#include <QStackedWidget>

namespace gatehouse {

QStringList MainWindow::pageNames() const
{
    return m_pages->names();
}

void MainWindow::showPage(int index)
{
    m_pages->setCurrentRow(index);
}

int MainWindow::currentPage() const
{
    return m_stack->currentIndex();
}

int MainWindow::pageOf(const QString &section) const
{
    SectionPage *page = sectionPage(section);
    return page ? m_stack->indexOf(page) : -1;
}

QWidget *MainWindow::page(int index) const
{
    return m_stack->widget(index);
}

SectionPage *MainWindow::sectionPage(const QString &section) const
{
    for (SectionPage *page : m_sectionPages) {
        if (page->section().id == section)
            return page;
    }
    return nullptr;
}

ObjectTableModel *MainWindow::model(const QString &section) const
{
    SectionPage *page = sectionPage(section);
    return page ? page->model() : nullptr;
}

ChartPanel *MainWindow::chart(const QString &section) const
{
    SectionPage *page = sectionPage(section);
    return page ? page->chart() : nullptr;
}

QTableView *MainWindow::table(const QString &section) const
{
    SectionPage *page = sectionPage(section);
    return page ? page->table() : nullptr;
}

void MainWindow::selectRow(const QString &section, int row)
{
    if (SectionPage *page = sectionPage(section))
        page->selectRow(row);
}

bool MainWindow::exportCsv(const QString &section, const QString &fileName) const
{
    SectionPage *page = sectionPage(section);
    return page && page->exportCsv(fileName);
}

} // namespace gatehouse
